// Built when cpp-httplib or OpenSSL is missing: notifications say why they cannot be sent.
#include "xpuperf/alerts/notifier.h"

namespace xpuperf::alerts {

HttpPoster DefaultHttpPoster(double) {
  return [](const HttpPost&) -> Result<int> {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported: xpuperf was built without cpp-httplib/OpenSSL, so it cannot "
                     "send notifications");
  };
}

}  // namespace xpuperf::alerts

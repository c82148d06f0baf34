// ProfileXlaServer in a build without gRPC.
#include "xpuperf/xla_profiler/xla_profiler.h"

namespace xpuperf::xla_profiler {

bool XlaProfilerSupported() { return false; }

Result<XlaProfileResult> ProfileXlaServer(const XlaProfileRequest& request) {
  return MakeError(ErrorCode::kUnsupported,
                   "unsupported: built without gRPC (the XLA profiler client needs libgrpc++; "
                   "scripts/install-deps.sh installs it)");
}

}  // namespace xpuperf::xla_profiler

// Internal: a Client from a freshly created PJRT_Client.
#pragma once

#include <memory>

#include "xpuperf/pjrt/client.h"

namespace xpuperf::pjrt {

// Takes ownership of `client` and describes it (platform, devices).
Result<std::unique_ptr<Client>> MakeClient(const PJRT_Api* api, PJRT_Client* client);

}  // namespace xpuperf::pjrt

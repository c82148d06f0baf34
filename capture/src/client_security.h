// Internal: the agents' client security (TLS, CA, client certificate, basic auth) from the
// options `capture` and `capture --on-alert` share.
#pragma once

#include "xpuperf/agent/rpc_client.h"
#include "xpuperf/capture/capture_command.h"
#include "xpuperf/core/status.h"

namespace xpuperf::capture {

// kInvalidArgument naming the credentials file when it cannot be read or is malformed.
Result<agent::ClientSecurity> ClientSecurityFrom(const CaptureCommandOptions& options);

}  // namespace xpuperf::capture

// The option string of xpuperf_open: "root=PATH;backends=cpu,nvidia;pids=1,2".
#pragma once

#include <string_view>

#include "xpuperf/core/session.h"

namespace xpuperf::capi {

// Empty text gives the defaults. Spaces around keys, values and list items are ignored, as are
// empty ';' segments. Errors (kInvalidArgument) name the offending part.
Result<SessionOptions> ParseSessionOptions(std::string_view text);

}  // namespace xpuperf::capi

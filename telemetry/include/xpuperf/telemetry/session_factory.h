// Opens an SDK session over the built-in backends from the command-line options.
#pragma once

#include <memory>

#include "xpuperf/core/session.h"
#include "xpuperf/telemetry/commands.h"

namespace xpuperf::telemetry {

Result<std::unique_ptr<Session>> OpenSession(const CommonOptions& options);

}  // namespace xpuperf::telemetry

// Opens an SDK session over the built-in backends from the command-line options.
#pragma once

#include <memory>

#include "xpuperf/cli/commands.h"
#include "xpuperf/core/session.h"

namespace xpuperf::cli {

Result<std::unique_ptr<Session>> OpenSession(const CommonOptions& options);

}  // namespace xpuperf::cli

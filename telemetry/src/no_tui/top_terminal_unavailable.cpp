// RunTopTerminal in a build without curses (XPUPERF_WITH_TUI=OFF): says so; `top --plain` (and
// top with stdout not a terminal) prints plain tables as in every build.
#include <ostream>

#include "top_view.h"
#include "xpuperf/telemetry/commands.h"

namespace xpuperf::telemetry {

int RunTopTerminal(TopModel& model, const TopOptions& options, std::ostream& err) {
  err << "xpuperf top: error: top: unsupported: built without the curses view "
         "(XPUPERF_WITH_TUI=OFF); "
         "use top --plain\n";
  return kExitFailure;
}

}  // namespace xpuperf::telemetry

#include <unistd.h>

#include <ostream>

#include "xpuperf/cli/commands.h"
#include "xpuperf/cli/session_factory.h"
#include "xpuperf/cli/top_view.h"

namespace xpuperf::cli {

int RunTop(const TopOptions& options, std::ostream& out, std::ostream& err) {
  if (Status s = ValidateRate(options.rate_seconds, "--rate"); !s.ok()) {
    err << "xpuperf: error: " << s.error().message << "\n";
    return kExitUsage;
  }
  if (options.count < 0 || options.processes < 0) {
    err << "xpuperf: error: --count and --processes must be >= 0\n";
    return kExitUsage;
  }
  auto session = OpenSession(options.common);
  if (!session.ok()) {
    err << "xpuperf: error: " << session.error().message << "\n";
    return ExitCodeFor(session.error());
  }
  TopModel model(std::move(session).value(), options.common.root);
  if (!options.plain && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
    return RunTopTerminal(model, options, err);
  }
  // Not a terminal: a plain table per refresh, separated by a blank line.
  for (int n = 0; options.count == 0 || n < options.count; ++n) {
    if (!SleepUnlessStopped(options.rate_seconds)) break;
    if (Status s = model.Refresh(); !s.ok()) {
      err << "xpuperf: error: " << s.error().message << "\n";
      return kExitFailure;
    }
    out << RenderTopPlain(model, static_cast<size_t>(options.processes));
    out.flush();
  }
  return kExitOk;
}

}  // namespace xpuperf::cli

#include <unistd.h>

#include <cstdlib>
#include <ostream>

#include "top_view.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/telemetry/commands.h"
#include "xpuperf/telemetry/session_factory.h"

namespace xpuperf::telemetry {

int RunTop(const TopOptions& options, std::ostream& out, std::ostream& err) {
  if (Status s = ValidateRate(options.rate_seconds, "--rate"); !s.ok()) {
    err << "xpuperf top: error: " << s.error().message << "\n";
    return kExitUsage;
  }
  if (Status s = ValidateCount(options.count); !s.ok()) {
    err << "xpuperf top: error: " << s.error().message << "\n";
    return kExitUsage;
  }
  if (options.processes < 0 || options.processes > 100000) {
    err << "xpuperf top: error: --processes must be between 0 and 100000\n";
    return kExitUsage;
  }
  auto session = OpenSession(options.common);
  if (!session.ok()) {
    err << "xpuperf top: error: " << session.error().message << "\n";
    return ExitCodeFor(session.error());
  }
  TopModel model(std::move(session).value(), options.common.root);
  if (!options.plain && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
    const int code = RunTopTerminal(model, options, err);
    if (code != kTopNeedsPlain) return code;
    const char* term = std::getenv("TERM");
    err << "xpuperf top: note: TERM=" << (term && *term ? term : "(unset)")
        << " cannot draw the full-screen view; plain tables instead\n";
  }
  // Not a terminal: a plain table per refresh, separated by a blank line.
  for (int n = 0; !options.count || n < *options.count; ++n) {
    if (!SleepUnlessCancelled(options.rate_seconds)) break;
    if (Status s = model.Refresh(); !s.ok()) {
      err << "xpuperf top: error: " << s.error().message << "\n";
      return kExitFailure;
    }
    out << RenderTopPlain(model, static_cast<size_t>(options.processes));
    out.flush();
  }
  return kExitOk;
}

}  // namespace xpuperf::telemetry

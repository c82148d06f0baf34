#include <ostream>

#include "xpuperf/builtin_backends.h"
#include "xpuperf/cli/commands.h"
#include "xpuperf/cli/session_factory.h"
#include "xpuperf/cli/views.h"

namespace xpuperf::cli {

int RunDevices(const DevicesOptions& options, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(options.common);
  if (!session.ok()) {
    err << "xpuperf: error: " << session.error().message << "\n";
    return ExitCodeFor(session.error());
  }
  const auto& s = **session;
  if (options.json) {
    out << DevicesJson(HostName(), s.devices(), s.backends()).dump(2) << "\n";
  } else {
    out << RenderDevices(s.devices(), s.backends());
  }
  return kExitOk;
}

}  // namespace xpuperf::cli

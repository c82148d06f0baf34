#include <ostream>

#include "pjrt_devices.h"
#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/telemetry/commands.h"
#include "xpuperf/telemetry/session_factory.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::telemetry {

int RunDevices(const DevicesOptions& options, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(options.common);
  if (!session.ok()) {
    err << "xpuperf devices: error: " << session.error().message << "\n";
    return ExitCodeFor(session.error());
  }
  const auto& s = **session;
  const std::vector<pjrt::ProbeResult> plugins =
      options.pjrt ? ProbePjrtPlugins(options.pjrt_plugin) : std::vector<pjrt::ProbeResult>{};
  if (options.json) {
    nlohmann::json j = DevicesJson(HostName(), s.devices(), s.backends());
    if (!plugins.empty()) j["pjrt_plugins"] = PjrtPluginsJson(plugins);  // only when any is found
    out << j.dump(2) << "\n";
  } else {
    out << RenderDevices(s.devices(), s.backends()) << RenderPjrtPlugins(plugins);
  }
  return kExitOk;
}

}  // namespace xpuperf::telemetry

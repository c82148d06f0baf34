// `xpuperf devices`: the PJRT plugins found on this machine, each probed in a child process with a
// deadline (xpuperf/pjrt/probe.h), with their PJRT API, platform version and devices.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xpuperf/pjrt/probe.h"

namespace xpuperf::telemetry {

// `explicit_plugin` (a path, may be empty) first, then every plugin pjrt::FindPlugins finds.
std::vector<pjrt::ProbeResult> ProbePjrtPlugins(const std::string& explicit_plugin);
// Empty when no plugin was found; else a "PJRT plugins" section.
std::string RenderPjrtPlugins(const std::vector<pjrt::ProbeResult>& plugins);
nlohmann::json PjrtPluginsJson(const std::vector<pjrt::ProbeResult>& plugins);

}  // namespace xpuperf::telemetry

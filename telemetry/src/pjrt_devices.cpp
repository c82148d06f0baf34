#include "pjrt_devices.h"

#include <fmt/format.h>

#include <map>

#include "xpuperf/render/format.h"

namespace xpuperf::telemetry {

std::vector<pjrt::ProbeResult> ProbePjrtPlugins(const std::string& explicit_plugin) {
  std::vector<pjrt::PluginLocation> locations;
  if (!explicit_plugin.empty()) {
    locations.push_back({pjrt::KindFromPath(explicit_plugin), explicit_plugin, "--pjrt-plugin"});
  }
  for (pjrt::PluginLocation& found : pjrt::FindPlugins(pjrt::DiscoveryEnvironment::FromProcess())) {
    if (found.path != explicit_plugin) locations.push_back(std::move(found));
  }
  std::vector<pjrt::ProbeResult> results;
  results.reserve(locations.size());
  for (const pjrt::PluginLocation& location : locations) {
    results.push_back(pjrt::ProbePlugin(location, "/proc/self/exe", pjrt::ProbeTimeoutSeconds()));
  }
  return results;
}

namespace {

// One line per device with memory statistics ("device 0: 1.2 GiB in use of 16 GiB"), or one
// line saying why there are none (the first device's reason).
std::string RenderDeviceMemory(const std::vector<pjrt::ProbeDevice>& devices) {
  std::string text;
  for (const pjrt::ProbeDevice& d : devices) {
    if (!d.bytes_limit && !d.bytes_in_use) continue;
    text += fmt::format(
        "        device {}: {} in use of {}\n", d.id,
        d.bytes_in_use ? FormatBytes(static_cast<double>(*d.bytes_in_use)) : "?",
        d.bytes_limit ? FormatBytes(static_cast<double>(*d.bytes_limit)) : "an unstated limit");
  }
  if (text.empty() && !devices.empty() && !devices.front().memory_note.empty()) {
    text = fmt::format("        memory statistics: {}\n", devices.front().memory_note);
  }
  return text;
}

}  // namespace

std::string RenderPjrtPlugins(const std::vector<pjrt::ProbeResult>& plugins) {
  if (plugins.empty()) return "";
  std::string text = "\nPJRT plugins (benchmarks: xpuperf bench run --suite pjrt)\n";
  for (const pjrt::ProbeResult& p : plugins) {
    const std::string kind = p.location.kind.empty() ? "?" : p.location.kind;
    text += fmt::format("  {:<5} {}  [{}]\n", kind, p.location.path, p.location.source);
    if (!p.ok) {
      if (p.api.major != 0 || p.api.minor != 0) {
        text += fmt::format("        PJRT API {}.{}\n", p.api.major, p.api.minor);
      }
      text += fmt::format("        {}\n", p.error);
      continue;
    }
    std::map<std::string, int> kinds;
    for (const pjrt::ProbeDevice& d : p.devices) ++kinds[d.kind];
    std::string listing;
    for (const auto& [device_kind, count] : kinds) {
      listing += fmt::format("{}{} x {}", listing.empty() ? "" : ", ", count, device_kind);
    }
    text += fmt::format("        PJRT API {}.{}, platform {} ({}), {} device{}: {}\n", p.api.major,
                        p.api.minor, p.platform, p.platform_version, p.devices.size(),
                        p.devices.size() == 1 ? "" : "s", listing);
    text += RenderDeviceMemory(p.devices);
  }
  return text;
}

nlohmann::json PjrtPluginsJson(const std::vector<pjrt::ProbeResult>& plugins) {
  nlohmann::json list = nlohmann::json::array();
  for (const pjrt::ProbeResult& p : plugins) list.push_back(p.ToJson());
  return list;
}

}  // namespace xpuperf::telemetry

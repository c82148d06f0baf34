#include "pjrt_benchmark.h"

#include <algorithm>

#include "xpuperf/pjrt/profiler.h"

namespace xpuperf::pjrt_bench {

std::string PjrtBenchmark::PluginChoice(const nlohmann::json& point) {
  if (point.is_object() && point.contains(kPluginKey) && point.at(kPluginKey).is_string()) {
    return point.at(kPluginKey).get<std::string>();
  }
  return "";
}

Status PjrtBenchmark::CanRun(const Device& device, const nlohmann::json& point) const {
  auto location =
      pjrt::ResolvePlugin(PluginChoice(point), pjrt::DiscoveryEnvironment::FromProcess());
  if (!location.ok()) return location.error();
  return Status::Ok();
}

namespace {

std::string ClassOfPlatform(const std::string& platform) {
  if (platform == "tpu" || platform == "cpu") return platform;
  return "gpu";  // cuda, rocm and the plugins of other accelerators
}

}  // namespace

Result<std::string> PjrtBenchmark::DeviceClass(const Device& /*device*/,
                                               const nlohmann::json& point) const {
  XPUPERF_ASSIGN_OR_RETURN(
      const pjrt::PluginLocation location,
      pjrt::ResolvePlugin(PluginChoice(point), pjrt::DiscoveryEnvironment::FromProcess()));
  const std::string kind = pjrt::KindFromPath(location.path);
  if (!kind.empty()) return ClassOfPlatform(kind);
  XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point)));
  return ClassOfPlatform(target->client->platform_name());
}

void PjrtBenchmark::Attribute(bench::Measurement& m, const PjrtTarget& target, int device,
                              const PjrtHostQueue& queue) {
  m.device = target.DeviceRecord(device);
  m.timing_source = queue.timing_source();
  const DeviceTiming& timing = queue.device_timing;
  m.parameters["client_devices"] = target.client->devices().size();
  if (!timing.seconds_per_rep.empty()) {
    std::vector<double> sorted = timing.seconds_per_rep;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    m.parameters["device_seconds_per_repetition"] = median;
    m.parameters["device_timing"] =
        "the plugin's profiler extension: median of the kept samples' XLA Modules events on the "
        "device, per repetition";
    m.timing_source += "; device time from the plugin's profiler (device_seconds_per_repetition)";
  } else {
    std::string note = timing.note;
    if (note.empty()) {
      note = pjrt::HasProfilerExtension(target.client->api())
                 ? "not measured: this benchmark times host calls, not device programs"
                 : pjrt::kNoProfilerExtension;
    }
    m.parameters["device_timing"] = note;
    m.timing_source += "; no device time (" + note + ")";
  }
  const nlohmann::json described = target.Describe(device);  // must outlive the loop
  for (const auto& [key, value] : described.items()) m.parameters[key] = value;
}

}  // namespace xpuperf::pjrt_bench

#include "pjrt_benchmark.h"

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

void PjrtBenchmark::Attribute(bench::Measurement& m, const PjrtTarget& target, int device,
                              const PjrtHostQueue& queue) {
  m.device = target.DeviceRecord(device);
  m.timing_source = queue.timing_source();
  const nlohmann::json described = target.Describe(device);  // must outlive the loop
  for (const auto& [key, value] : described.items()) m.parameters[key] = value;
}

}  // namespace xpuperf::pjrt_bench

#include "device_timing.h"

#include <fmt/format.h>

#include <algorithm>

#include "xpuperf/trace/trace.h"
#include "xpuperf/trace/xplane.h"

namespace xpuperf::pjrt_bench {

Result<std::vector<double>> ModuleSecondsFromXSpace(std::string_view xspace, int device_ordinal) {
  auto parsed = trace::ParseXSpace(xspace, "the plugin's profile");
  if (!parsed.ok() && !xspace.empty() && xspace.back() == '\0') {
    parsed = trace::ParseXSpace(xspace.substr(0, xspace.size() - 1), "the plugin's profile");
  }
  if (!parsed.ok()) return parsed.error();
  const trace::Trace& t = *parsed;
  std::vector<std::pair<int64_t, int64_t>> modules;  // start, duration (ns)
  for (const trace::TraceEvent& e : t.events) {
    if (e.device != device_ordinal || t.Category(e) != trace::kXlaModulesCategory) continue;
    modules.emplace_back(e.ts_ns, e.dur_ns);
  }
  std::sort(modules.begin(), modules.end());
  std::vector<double> seconds;
  seconds.reserve(modules.size());
  for (const auto& [start, duration] : modules) seconds.push_back(duration * 1e-9);
  return seconds;
}

DeviceTiming DeviceTimingFromModules(const std::vector<double>& module_seconds, size_t samples,
                                     int64_t repetitions) {
  DeviceTiming timing;
  if (module_seconds.size() < samples || samples == 0 || repetitions < 1) {
    timing.note = fmt::format(
        "unsupported: the plugin's profile holds {} XLA Modules events on the device for {} "
        "samples",
        module_seconds.size(), samples);
    return timing;
  }
  for (size_t i = module_seconds.size() - samples; i < module_seconds.size(); ++i) {
    timing.seconds_per_rep.push_back(module_seconds[i] / static_cast<double>(repetitions));
  }
  return timing;
}

}  // namespace xpuperf::pjrt_bench

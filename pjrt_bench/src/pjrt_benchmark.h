// Internal: what every PJRT benchmark shares: the plugin choice of a point, the run's target and
// device, and the record fields that say where and how it was measured.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pjrt_target.h"
#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/registry.h"  // MakeThroughput

namespace xpuperf::pjrt_bench {

// Keys every PJRT point may carry besides its own.
inline constexpr const char* kPluginKey = "plugin";  // path or kind ("tpu", "cuda", "cpu")
inline constexpr const char* kDeviceKey = "device";  // position among the addressable devices

class PjrtBenchmark : public bench::Benchmark {
 public:
  bench::Component component() const override { return component_; }
  // Ok when a plugin can be found for the point (cheap: no plugin is loaded); kUnsupported with
  // what to install otherwise.
  Status CanRun(const Device& device, const nlohmann::json& point) const override;
  // The class of the point's plugin: its kind by file name ("tpu", "cuda" -> "gpu", "cpu"), else
  // the platform of the client it opens ("tpu", "cpu", the rest "gpu").
  Result<std::string> DeviceClass(const Device& device, const nlohmann::json& point) const override;

 protected:
  explicit PjrtBenchmark(bench::Component component) : component_(component) {}
  static std::string PluginChoice(const nlohmann::json& point);
  // Fills device, timing source and the plugin/platform parameters of a measurement.
  static void Attribute(bench::Measurement& m, const PjrtTarget& target, int device,
                        const PjrtHostQueue& queue);

 private:
  bench::Component component_;
};

}  // namespace xpuperf::pjrt_bench

#include "xpuperf/bench/benchmark.h"

namespace xpuperf::bench {

Result<std::string> Benchmark::DeviceClass(const Device& device,
                                           const nlohmann::json& /*point*/) const {
  if (device.backend == "cpu") return std::string("cpu");
  if (device.backend == "tpu") return std::string("tpu");
  return std::string("gpu");
}

}  // namespace xpuperf::bench

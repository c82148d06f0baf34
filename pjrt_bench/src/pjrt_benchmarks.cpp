#include "xpuperf/pjrt_bench/pjrt_benchmarks.h"

#include <fmt/format.h>
#include <unistd.h>

#include "pjrt_benchmarks_internal.h"

namespace xpuperf::pjrt_bench {

void AddPjrtBenchmarks(bench::BenchmarkRegistry& registry) {
  registry.Add(MakePjrtGemmBenchmark());
  registry.Add(MakePjrtStreamBenchmark());
  registry.Add(MakePjrtHostTransferBenchmark());
  registry.Add(MakePjrtCollectivesBenchmark());
  registry.Add(MakePjrtAttentionBenchmark());
  registry.Add(MakePjrtDispatchBenchmark());
}

Status CheckHostBytes(const std::string& benchmark, double bytes) {
  const double memory =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (memory > 0 && bytes > memory / 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{}: the point needs {:.3g} GB of host memory, more than half of "
                                 "this machine's {:.3g} GB",
                                 benchmark, bytes / 1e9, memory / 1e9));
  }
  return Status::Ok();
}

std::vector<bench::ParameterSpec> TargetParameters(bool device) {
  std::vector<bench::ParameterSpec> specs = {bench::TextParameter(kPluginKey, nullptr)};
  if (device) specs.push_back(bench::IntegerParameter(kDeviceKey, 0, 0, 1 << 20));
  return specs;
}

int64_t IntegerOf(const nlohmann::json& point, const char* key, int64_t absent) {
  const auto it = point.find(key);
  return it != point.end() && it->is_number_integer() ? it->get<int64_t>() : absent;
}

std::string TextOf(const nlohmann::json& point, const char* key) {
  const auto it = point.find(key);
  return it != point.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool FlagOf(const nlohmann::json& point, const char* key) {
  const auto it = point.find(key);
  return it != point.end() && it->is_boolean() && it->get<bool>();
}

Result<int> DevicePosition(const std::string& benchmark, const nlohmann::json& point,
                           const PjrtTarget& target) {
  const auto devices = static_cast<int64_t>(target.client->devices().size());
  const int64_t device = IntegerOf(point, kDeviceKey, 0);
  if (device >= devices) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: 'device' must be between 0 and {} (got {}): the plugin has {} "
                    "device{}",
                    benchmark, devices - 1, device, devices, devices == 1 ? "" : "s"));
  }
  return static_cast<int>(device);
}

}  // namespace xpuperf::pjrt_bench

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

Result<int> DevicePosition(const PointReader& point, const PjrtTarget& target) {
  const auto devices = static_cast<int64_t>(target.client->devices().size());
  XPUPERF_ASSIGN_OR_RETURN(const int64_t device, point.Integer(kDeviceKey, 0, 0, devices - 1));
  return static_cast<int>(device);
}

}  // namespace xpuperf::pjrt_bench

// environment.json: what a reader needs to reproduce or compare a run.
#include <omp.h>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/results.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/version.h"

namespace xpuperf::bench {

nlohmann::json DescribeEnvironment(const Device& device, const RunInfo& run) {
  nlohmann::json env;
  env["json_schema_version"] = kJsonSchemaVersion;
  env["run_id"] = run.run_id;
  env["host"] = run.host;
  env["suite"] = run.suite;
  env["xpuperf_version"] = kVersion;
  env["skipped"] = run.skipped;
  env["device"] = ToJson(device);
  env["allowed_cpus"] = AllowedCpus();
  env["compiler"] = std::string("g++ ") + __VERSION__;
  env["openmp"] = {{"version", _OPENMP}, {"max_threads", omp_get_max_threads()}};
  env["openblas"] = {{"config", OpenBlasConfig()}, {"threads", OpenBlasThreads()}};
  if (auto info = ReadCpuInfo("/"); info.ok() && !info->cpus.empty()) {
    const SimdLevel level = BestSimdLevel(info->cpus.front().flags);
    env["simd_kernels"] = SimdLevelName(level);
    const int cores = device.topology.cores > 0 ? device.topology.cores : 1;
    const NominalPeak peak = ComputeNominalPeak(*info, "/", cores, Precision::kFp64, level);
    env["nominal_fp64_peak"] = {{"gflops", peak.flops_per_second / 1e9},
                                {"derivation", peak.description}};
  }
  return env;
}

}  // namespace xpuperf::bench

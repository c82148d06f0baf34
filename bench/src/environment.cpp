// environment.json: what a reader needs to reproduce or compare a run.
#include <omp.h>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/nominal_peak.h"
#include "xpuperf/bench/peak_kernels.h"
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
  env["partial"] = run.partial;
  if (run.partial) {
    env["points_done"] = run.points_done;
    env["points_pending"] = run.points_pending;
  }
  env["resume"] = run.resume;
  nlohmann::json state = nlohmann::json::object();
  if (run.machine_before) {
    state["before"] = ToJson(*run.machine_before);
    if (run.machine_window_start) {
      state["busy_at_start"] = BusyAtStart(*run.machine_window_start, *run.machine_before);
      state["before_window"] = ToJson(LoadBetween(*run.machine_window_start, *run.machine_before));
    }
  }
  if (run.machine_after) state["after"] = ToJson(*run.machine_after);
  if (run.machine_before && run.machine_after) {
    state["during"] = ToJson(LoadBetween(*run.machine_before, *run.machine_after));
    state["busy_during"] = BusyReasons(LoadBetween(*run.machine_before, *run.machine_after),
                                       run.machine_before->cpus, "the run");
  }
  env["machine_state"] = std::move(state);
  env["inconsistencies"] = run.inconsistencies;
  env["device"] = ToJson(device);
  env["allowed_cpus"] = AllowedCpus();
  env["compiler"] = std::string("g++ ") + __VERSION__;
  env["openmp"] = {{"version", _OPENMP}, {"max_threads", omp_get_max_threads()}};
  env["openblas"] = {{"config", OpenBlasConfig()}, {"threads", OpenBlasThreads()}};
  if (auto info = ReadCpuInfo("/"); info.ok() && !info->cpus.empty()) {
    const IsaFeatures features = HostFeatures();
    env["isa_features"] = features.ToString();
    nlohmann::json kernels = nlohmann::json::object();
    for (const Precision precision : {Precision::kFp64, Precision::kFp32, Precision::kBf16,
                                      Precision::kFp16, Precision::kInt8}) {
      auto kernel = SelectPeakKernel(precision, features);
      kernels[std::string(PrecisionName(precision))] =
          kernel.ok() ? std::string((*kernel)->isa) : kernel.error().message;
    }
    env["simd_kernels"] = kernels;
    const int cores = device.topology.cores > 0 ? device.topology.cores : 1;
    if (auto fp64 = SelectPeakKernel(Precision::kFp64, features); fp64.ok()) {
      const NominalPeak peak =
          ComputeNominalPeak(*info, cores, **fp64, ReadCoreClocks(*info, "/").Best());
      env["nominal_fp64_peak"] = {{"gflops", peak.flops_per_second / 1e9},
                                  {"derivation", peak.description}};
    }
  }
  return env;
}

}  // namespace xpuperf::bench

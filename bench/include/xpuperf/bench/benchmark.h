// The benchmark interface: each benchmark declares its component, its sweep points and whether it
// can run on a device, and returns measurements with raw samples and the counts behind throughput.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/bench/parameters.h"
#include "xpuperf/bench/queue.h"
#include "xpuperf/bench/sampler.h"
#include "xpuperf/bench/statistics.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

enum class Component { kCompute, kMemory, kHostTransfer, kNetwork, kAttention };

std::string_view ComponentName(Component component);
// kNotFound naming the known components for anything else.
Result<Component> ParseComponent(std::string_view name);

// One derived result of a benchmark point: a throughput (or a detected level) with the samples it
// came from. value is computed from the median sample time.
struct Measurement {
  std::string benchmark;                                 // "peak_fma"
  std::string metric;                                    // "fp64_flops", "triad_bandwidth"
  double value = 0;                                      // in unit
  std::string unit;                                      // "GFLOP/s", "GB/s" (1e9)
  nlohmann::json parameters = nlohmann::json::object();  // the sweep point plus derived settings
  std::vector<double> sample_seconds;                    // per repetition, after warm-up
  SampleStatistics statistics;                           // of sample_seconds
  int64_t repetitions_per_sample = 1;
  double flops_per_repetition = 0;     // exact count behind FLOP/s (0 when not a compute metric)
  double bytes_per_repetition = 0;     // exact count behind bandwidth (0 when not a memory metric)
  std::string formula;                 // how value was derived, with the counts
  std::optional<double> nominal_peak;  // in unit, where known
  std::string nominal_source;          // how the nominal peak was derived
  std::string timing_source;
  // The device measured when it is not the run's own (a GPU point of a run on its host); the
  // result record names it instead of the run's device.
  std::optional<Device> device;
  // False when the figure is not to be trusted as the machine's: its samples spread beyond the
  // sampling target, the machine was busy while it ran, or it contradicts another figure of the
  // same run (physically impossible). Consumers say "unstable" instead of judging it.
  bool stable = true;
  std::vector<std::string> unstable_reasons;
  // Other processes' CPU share and steal time while the point ran (machine_state.h); null when
  // not read (a run read back from an older file).
  nlohmann::json machine_load;
};

// Marks a measurement unstable with one more reason (a reason already given is not repeated).
void MarkUnstable(Measurement& measurement, std::string reason);

// What a benchmark run needs from the engine.
struct RunContext {
  const Device* device = nullptr;
  ExecutionQueue* queue = nullptr;
  SamplingOptions sampling;
  int threads = 0;  // 0 = every CPU this process may run on
  // What the points run before this one in the same run measured (attention relates its rate to
  // the fp32 GEMM rate); null outside a suite run.
  const std::vector<Measurement>* earlier = nullptr;
  // Where the runner reads the machine's state around each point (machine_state.h): "/" live, a
  // recorded tree in tests.
  std::string machine_root = "/";
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  virtual std::string name() const = 0;
  virtual Component component() const = 0;
  virtual std::string description() const = 0;
  // The sweep points run when a suite gives none.
  virtual std::vector<nlohmann::json> default_sweep() const = 0;
  // The typed description of a sweep point's parameters (xpuperf/bench/parameters.h). The runner
  // and ValidateSuite resolve every point against it (unknown keys, wrong types and ranges are
  // errors) and CanRun/Run see only resolved points. Every built-in benchmark has one (CPU, PJRT
  // and gpu_*); nullopt leaves a benchmark to check its points itself.
  virtual std::optional<ParameterSchema> parameter_schema() const { return std::nullopt; }
  // The class of device ("tpu", "gpu", "cpu") a point would run on when offered `device`: the
  // suite entries' `devices` variants are chosen by it (suite.h). The default is the device's:
  // "cpu" for the CPU backend, "tpu" for TPUs, "gpu" for the others. An error when it cannot be
  // told without running (the runner then keeps every variant and CanRun decides).
  virtual Result<std::string> DeviceClass(const Device& device, const nlohmann::json& point) const;
  // Ok, or kUnsupported with the reason ("unsupported: no AVX512_BF16").
  virtual Status CanRun(const Device& device, const nlohmann::json& point) const = 0;
  // Runs one sweep point. kInvalidArgument for a bad parameter, kInternal when verification fails.
  virtual Result<std::vector<Measurement>> Run(const nlohmann::json& point,
                                               RunContext& context) = 0;
};

}  // namespace xpuperf::bench

// `xpuperf bench compile-check`: every program the PJRT benchmarks generate (their default
// points), compiled for a named topology by a plugin that can compile without the devices, e.g.
// libtpu for "v5e:2x2" on a host with no TPU (PJRT_TopologyDescription_Create + PJRT_Compile).
// Nothing runs: a program that compiles is one the benchmarks can run on such a TPU; the compiler's
// memory use and cost analysis come back with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::pjrt_bench {

struct CompileCheckRow {
  std::string benchmark;  // pjrt_gemm, pjrt_stream, ...
  std::string point;      // the point, as "precision=bf16 m=1024 ..."
  int replicas = 1;
  std::string error;  // empty when it compiled; "skipped: why" when it was not tried
  // From the compiler, when it reports them (device memory, bytes).
  std::optional<int64_t> generated_code_bytes, argument_bytes, output_bytes, temp_bytes;
  std::optional<double> flops;  // XLA's cost analysis, per execution
};

struct CompileCheckReport {
  std::string plugin;    // path
  std::string topology;  // as asked
  std::string platform;  // "tpu"
  std::string device_kind;
  int devices = 0;
  std::vector<CompileCheckRow> rows;
  int failures() const;  // rows with an error, skips not counted
};

// Loads the plugin (a path, or "tpu", "cuda", "cpu" for an installed one: pjrt/discovery.h; libtpu
// with TPU_SKIP_MDS_QUERY=1 unless set, so that it does not wait for a cloud metadata server),
// describes the topology and compiles each program. Errors: the plugin cannot load, or the topology
// cannot be described (the plugin's message); a program that does not compile is a row with its
// error.
Result<CompileCheckReport> CompileCheck(const std::string& plugin_path,
                                        const std::string& topology);

}  // namespace xpuperf::pjrt_bench

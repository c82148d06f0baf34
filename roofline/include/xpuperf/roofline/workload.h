// Workload points: FLOPs, bytes moved, host and collective bytes and a measured time per
// kernel/op/layer, from the command line, a YAML/JSON file (op helpers for shapes) or the SDK's
// op recorder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/sample.h"
#include "xpuperf/core/status.h"

namespace xpuperf::roofline {

struct WorkloadPoint {
  std::string name;
  // "gemm", "attention", "elementwise", "conv2d", "collective" or "" (given by counts); the advice
  // rules use it.
  std::string op;
  std::string dtype = "fp32";  // selects the compute ceiling
  double flops = 0;
  double bytes = 0;  // main-memory (DRAM/HBM) traffic
  // Optional traffic per level ("L1", "L2", "L3", "DRAM", "HBM"); a level here overrides `bytes`
  // for that level.
  std::map<std::string, double> bytes_by_level;
  double host_bytes = 0;  // bytes over the host link
  std::string host_direction = "h2d";
  double collective_bytes = 0;          // bus bytes (nccl-tests busbw counting)
  double collective_message_bytes = 0;  // size of each collective call, 0 when unknown
  std::optional<double> time_seconds;   // measured; absent = place by the roofs alone
  std::string formula;                  // how flops/bytes were counted (op helpers)
  // True when this point's kernel ran right after the previous point's (a trace says so; a
  // workload file with `follows_previous: true`). Fusion advice needs it: entries of a workload
  // file are otherwise unrelated.
  bool follows_previous = false;
};

// Device memory in use by the workload, for the capacity rule.
struct MemoryUse {
  double peak_bytes = 0;
  double capacity_bytes = 0;  // 0 = unknown (the result directory's device memory is used)
};

struct Workload {
  std::string name;
  std::vector<WorkloadPoint> points;
  std::optional<MemoryUse> memory;
};

// Parses a workload file: either a list of entries or a map {name, memory: {peak_bytes,
// capacity_bytes}, points: [entries]}. An entry has a name and either counts (flops, bytes,
// bytes_by_level, host_bytes, collective_bytes) or one op helper (gemm: {m, n, k, batch,
// accumulate, dtype}, attention: {batch, heads, seq_len, kv_seq_len, head_dim, causal, dtype},
// elementwise: {elements, inputs, outputs, flops_per_element, dtype}, conv2d: {batch,
// in_channels, out_channels, height, width, kernel | kernel_h + kernel_w, stride, padding,
// groups, dtype}, collective: {op, bytes, ranks}), plus time (s) | time_ms | time_us and
// follows_previous (the op ran right after the previous entry's: fusion advice). Counts given
// next to a helper add to it. JSON is accepted (it is YAML). kParse with file:line.
Result<Workload> ParseWorkload(std::string_view text, std::string_view file_name);
Result<Workload> LoadWorkload(const std::string& path);

// Checks one point: finite non-negative counts, something to bound it (flops or traffic), a
// positive time when given, a known dtype.
Status ValidatePoint(const WorkloadPoint& point);

// Times from the SDK's op recorder (xpuperf::Recorder::Snapshot readings of
// op_execution_time_seconds, one distribution per `op` label): each point without a time whose
// name equals a recorded op takes the recorded total (sum of durations), and its per-call counts
// are multiplied by the number of calls. The recorder keeps durations only: FLOPs and bytes must
// come from the workload (counts or op helpers). Returns how many points were filled.
int ApplyRecordedTimes(const std::vector<Reading>& readings, Workload& workload);

}  // namespace xpuperf::roofline

// Bottleneck findings from a trace: one rule table (the rules of the PyTorch TensorBoard plugin,
// XProf and Nsight Systems, docs/TRACES.md), each rule turning analysis results into a finding with
// evidence and advice, or nothing.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/critical_path.h"

namespace xpuperf::trace {

// What the rules look at, for one rank; built by SummariseRank (tests may fill it by hand).
struct RankEvidence {
  int rank = 0;
  TemporalBreakdown temporal;
  IdleBreakdown idle;
  KernelBreakdown kernels;
  CommComputeOverlap overlap;
  LaunchStats launches;
  MemcpyBandwidth memcpy;
  IterationBreakdown iterations;
  MemoryEventsSummary memory;
  OperatorBreakdown operators;
  CriticalPath critical_path;
  int64_t cpu_window_ns = 0;    // first to last event of any kind
  int64_t dataloader_ns = 0;    // union of *DataLoader* CPU ranges
  int64_t sync_calls = 0;       // cudaDeviceSynchronize/StreamSynchronize/EventSynchronize
  int64_t sync_ns = 0;          // their total CPU time
  int64_t pageable_copies = 0;  // memcpy events from/to pageable host memory
  int64_t pageable_copy_ns = 0;
  int64_t tensor_core_kernel_ns = 0;       // kernels whose names mark tensor-core use
  int64_t gemm_eligible_ops = 0;           // cpu ops that could use tensor cores (mm, conv, ...)
  std::vector<std::string> fp32_gemm_ops;  // eligible ops whose first input is float32
  int compute_major = -1;                  // deviceProperties of the rank's device (-1 unknown)
};

// `critical_path_range`: the critical path's window (ComputeCriticalPath's `range`). `analyses`:
// the parts to compute, by AnalysisNames() name (empty, or "findings" in it: all of them, the
// rules need every part); the others stay empty.
RankEvidence SummariseRank(const Trace& trace, size_t top_k = 10,
                           std::string_view critical_path_range = {},
                           const std::set<std::string>& analyses = {});

enum class Severity { kInfo, kWarning, kCritical };
std::string_view SeverityName(Severity s);

struct Finding {
  std::string rule;   // "input_bound", "launch_bound", ...
  std::string title;  // one line
  Severity severity = Severity::kWarning;
  int rank = 0;
  double value = 0;      // the measured quantity the rule compares (a fraction, a count)
  double threshold = 0;  // the rule's threshold for it
  std::string evidence;  // numbers and the top offending ops
  std::string advice;    // what to do
};

struct Rule {
  std::string id;
  std::string condition;  // the rule in words, for docs and --json
  Finding (*check)(const RankEvidence&, bool* fired);
};

// The rule table, in the order findings are reported.
const std::vector<Rule>& Rules();
std::vector<Finding> EvaluateRules(const RankEvidence& evidence);

// Tensor-core kernel names: HMMA/IMMA/GMMA/WGMMA instructions, cuBLAS/CUTLASS tensor-op tile names
// ("884", "1688", "16816", "tensorop", "xmma"), MI-series on AMD ("MI16x16").
bool IsTensorCoreKernel(std::string_view name);

}  // namespace xpuperf::trace

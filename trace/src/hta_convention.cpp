// `--convention hta`: a run rewritten as Holistic Trace Analysis (HTA 0.5) reads it, and the
// analyses' HTA definitions. docs/TRACES.md ("The hta convention") states each rule and the
// differences that remain; trace/tests/hta_referee.py checks the result against HTA itself.
#include "xpuperf/trace/hta_convention.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "hta_frame.h"
#include "xpuperf/trace/analyses.h"

namespace xpuperf::trace {
namespace {

using internal::IsHtaGpuKernel;

// The double Python's float() gives for the decimal text of `ns` nanoseconds in microseconds:
// the correctly rounded value of ns / 1000. Exact division when ns is exactly a double (relative
// timestamps); otherwise through the decimal text, as Python parses it.
double MicrosAsPythonFloat(int64_t ns) {
  constexpr int64_t kExact = int64_t{1} << 53;
  if (ns > -kExact && ns < kExact) return static_cast<double>(ns) / 1000.0;
  char text[48];
  const int64_t whole = ns / 1000, frac = ns % 1000;
  std::snprintf(text, sizeof(text), "%s%lld.%03lld", ns < 0 && whole == 0 ? "-" : "",
                static_cast<long long>(whole), static_cast<long long>(frac < 0 ? -frac : frac));
  return std::strtod(text, nullptr);
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// HTA's `^nccl.*Kernel`.
bool IsHtaComm(std::string_view name) {
  return StartsWith(name, "nccl") && name.find("Kernel", 4) != std::string_view::npos;
}

// HTA's `(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)` (re.match: the alternatives are
// "^nccl.*Kernel", ".*Memcpy", "^Memset" and ".*Sync"): what is not a computation kernel.
bool IsHtaNonCompute(std::string_view name) {
  return IsHtaComm(name) || name.find("Memcpy") != std::string_view::npos ||
         StartsWith(name, "Memset") || name.find("Sync") != std::string_view::npos;
}

// HTA's transform_correlation_to_index over the rows it keeps: rows with a correlation (not -1)
// are split into GPU kernels and the rest, joined on correlation, and each side gets the file
// position of its partner; pandas' assignment with repeated labels leaves the last partner in
// file order, i.e. the largest position. Rows without a partner keep min(correlation, 0).
void SetHtaIndexCorrelation(const Trace& trace, std::vector<TraceEvent>& rows) {
  std::unordered_map<int64_t, uint32_t> last_cpu, last_gpu;  // correlation -> largest file_index
  std::vector<bool> is_gpu(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const TraceEvent& e = rows[i];
    is_gpu[i] = IsHtaGpuKernel(trace, e);
    if (e.correlation == -1) continue;
    auto& side = is_gpu[i] ? last_gpu : last_cpu;
    auto [it, inserted] = side.try_emplace(e.correlation, e.file_index);
    if (!inserted) it->second = std::max(it->second, e.file_index);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    TraceEvent& e = rows[i];
    int64_t link = std::min<int64_t>(e.correlation, 0);
    if (e.correlation != -1) {
      const auto& partners = is_gpu[i] ? last_cpu : last_gpu;
      auto it = partners.find(e.correlation);
      if (it != partners.end()) link = it->second;
    }
    e.hta_index_correlation = static_cast<int32_t>(std::clamp<int64_t>(link, INT32_MIN, INT32_MAX));
  }
}

}  // namespace

bool internal::IsHtaGpuKernel(const Trace& trace, const TraceEvent& e) {
  if (e.stream >= 0 && e.correlation >= 0) return true;
  const std::string_view name = trace.Name(e);
  return name == "Event Sync" || name == "Context Sync";
}

HtaKernelType HtaKernelTypeOf(std::string_view name) {
  if (IsHtaComm(name)) return HtaKernelType::kCommunication;
  if (StartsWith(name, "Memcpy") || StartsWith(name, "Memset") || StartsWith(name, "dma")) {
    return HtaKernelType::kMemory;
  }
  if (!IsHtaNonCompute(name)) return HtaKernelType::kComputation;
  return HtaKernelType::kOther;
}

void ApplyHtaConvention(Trace& trace, bool drop_last_profiler_step) {
  trace.convention = Convention::kHta;
  // Rows HTA keeps: a `dur` and a `cat`, cat not "Trace" (its _compress_df); stream as Python's
  // int() reads args.stream, else -1 (in 64 bits: Kineto writes 4294967295 for Context Sync).
  std::vector<TraceEvent> kept;
  kept.reserve(trace.events.size());
  for (TraceEvent e : trace.events) {
    if (e.hta_flags & (kHtaNoCategory | kHtaNoDuration)) continue;
    if (trace.Category(e) == "Trace") continue;
    if (e.hta_flags & kHtaStreamNotInteger) {
      e.stream = -1;
    } else if (e.hta_flags & kHtaStreamWide) {
      e.stream = INT32_MAX;  // 4294967295 is a stream to HTA (>= 0, != -1)
    }
    kept.push_back(e);
  }
  SetHtaIndexCorrelation(trace, kept);
  // Fractional timestamps anywhere make pandas' ts column float64, and then HTA rounds every
  // event inward to whole microseconds: ts up, ts + dur down (in doubles, as pandas adds them).
  if (trace.fractional_timestamps) {
    for (TraceEvent& e : kept) {
      const double ts = MicrosAsPythonFloat(e.ts_ns);
      const double end = ts + MicrosAsPythonFloat(e.dur_ns);
      const int64_t ts_us = static_cast<int64_t>(std::ceil(ts));
      const int64_t end_us = static_cast<int64_t>(std::floor(end));
      e.ts_ns = ts_us * 1000;
      e.dur_ns = (end_us - ts_us) * 1000;  // may be negative for sub-microsecond ops, as in HTA
    }
    // ceil is monotonic: the events stay in start order.
  }
  trace.events = std::move(kept);
  trace.hta_first_ts_ns = INT64_MAX;
  trace.hta_ts_us = trace.hta_dur_us = trace.hta_stream = trace.hta_correlation =
      trace.hta_file_index = trace.hta_pid = trace.hta_tid = Trace::HtaRange{};
  for (const TraceEvent& e : trace.events) {
    trace.hta_first_ts_ns = std::min(trace.hta_first_ts_ns, e.ts_ns);
    trace.hta_ts_us.Add(e.ts_ns / 1000);
    trace.hta_dur_us.Add(e.dur_ns / 1000);
    trace.hta_stream.Add(e.stream);
    trace.hta_correlation.Add(e.correlation);
    trace.hta_file_index.Add(e.file_index);
    trace.hta_pid.Add(e.pid);
    trace.hta_tid.Add(e.tid);
  }
  trace.hta_dropped_last_step = drop_last_profiler_step;
  if (!drop_last_profiler_step) return;
  // include_last_profiler_step=False: CPU events from the last ProfilerStep's start on are
  // dropped, and GPU kernels are kept only when a kept CPU event has their correlation (once per
  // such event: HTA's inner merge repeats a kernel for each).
  int64_t last_step_start = INT64_MIN;
  bool has_step = false;
  for (const TraceEvent& e : trace.events) {
    if (IsHtaGpuKernel(trace, e)) continue;
    if (trace.Name(e).find("ProfilerStep") == std::string_view::npos) continue;
    has_step = true;
    last_step_start = std::max(last_step_start, e.ts_ns);
  }
  std::unordered_map<int64_t, int64_t> cpu_correlations;  // correlation -> kept CPU events
  std::vector<TraceEvent> cpu, gpu;
  for (const TraceEvent& e : trace.events) {
    if (IsHtaGpuKernel(trace, e)) {
      gpu.push_back(e);
    } else if (has_step && e.ts_ns < last_step_start) {
      cpu.push_back(e);
      ++cpu_correlations[e.correlation];
    }
  }
  std::vector<TraceEvent> out;
  out.reserve(cpu.size() + gpu.size());
  for (const TraceEvent& e : gpu) {
    auto it = cpu_correlations.find(e.correlation);
    if (it == cpu_correlations.end()) continue;
    // A sync event without a correlation would match every CPU event without one: kept once.
    const int64_t copies = e.correlation < 0 ? 1 : it->second;
    for (int64_t c = 0; c < copies; ++c) out.push_back(e);
  }
  out.insert(out.end(), cpu.begin(), cpu.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.ts_ns < b.ts_ns; });
  trace.events = std::move(out);
}

int ApplyHtaConvention(TraceRun& run) {
  // HTA counts the distinct names that contain "ProfilerStep" over the whole run; it filters only
  // when there are at least two.
  std::vector<std::string> step_names;
  for (const Trace& t : run.ranks) {
    for (uint32_t id = 0; id < t.strings.size(); ++id) {
      const std::string_view name = t.strings.Get(id);
      if (name.find("ProfilerStep") == std::string_view::npos) continue;
      if (std::find(step_names.begin(), step_names.end(), name) == step_names.end()) {
        step_names.emplace_back(name);
      }
      if (step_names.size() >= 2) break;
    }
  }
  const bool filter = step_names.size() >= 2;
  for (Trace& t : run.ranks) {
    // The rank a file is read as: HTA finds `"rank": N` in the text, i.e. distributedInfo's.
    if (!t.has_distributed_info) t.rank = 0;
    ApplyHtaConvention(t, filter);
  }
  return static_cast<int>(step_names.size());
}

TemporalBreakdown ComputeHtaTemporalBreakdown(const Trace& trace) {
  TemporalBreakdown result;
  result.rank = trace.rank;
  // GPU events: stream != -1. merge_kernel_intervals: sort by ts, a new group when ts exceeds the
  // running maximum of the ends before it; the window is the last group's end - the first's ts.
  std::vector<Interval> busy, compute;
  for (const TraceEvent& e : trace.events) {
    if (e.stream == -1) continue;
    ++result.gpu_ops;
    busy.push_back({e.ts_ns, e.end_ns()});
    if (HtaKernelTypeOf(trace.Name(e)) == HtaKernelType::kComputation) {
      compute.push_back({e.ts_ns, e.end_ns()});
    }
  }
  if (result.gpu_ops == 0) return result;
  result.busy_ns = MergeIntervals(busy);
  result.window_ns = busy.back().end - busy.front().begin;
  result.compute_ns = compute.empty() ? 0 : MergeIntervals(compute);
  result.idle_ns = result.window_ns - result.busy_ns;
  result.non_compute_ns = result.window_ns - result.compute_ns - result.idle_ns;
  return result;
}

}  // namespace xpuperf::trace

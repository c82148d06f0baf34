// `--convention hta`: a run rewritten as Holistic Trace Analysis (HTA 0.5) reads it, and the
// analyses' HTA definitions. docs/TRACES.md ("The hta convention") states each rule and the
// differences that remain; trace/tests/hta_referee.py checks the result against HTA itself.
#include "xpuperf/trace/hta_convention.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
  // Each side's (correlation, file_index) pairs sorted: the last of a correlation's run holds
  // its largest file position (two sorts and binary searches: no hash-map node per row).
  using Link = std::pair<int64_t, uint32_t>;
  std::vector<Link> cpu_side, gpu_side;
  std::vector<bool> is_gpu(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const TraceEvent& e = rows[i];
    is_gpu[i] = IsHtaGpuKernel(trace, e);
    if (e.correlation == -1) continue;
    (is_gpu[i] ? gpu_side : cpu_side).emplace_back(e.correlation, e.file_index);
  }
  std::sort(cpu_side.begin(), cpu_side.end());
  std::sort(gpu_side.begin(), gpu_side.end());
  // The largest file position among `side`'s rows of `correlation`, or -1.
  auto last_of = [](const std::vector<Link>& side, int64_t correlation) -> int64_t {
    auto it = std::upper_bound(side.begin(), side.end(), correlation,
                               [](int64_t c, const Link& link) { return c < link.first; });
    if (it == side.begin() || std::prev(it)->first != correlation) return -1;
    return std::prev(it)->second;
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    TraceEvent& e = rows[i];
    int64_t link = std::min<int64_t>(e.correlation, 0);
    if (e.correlation != -1) {
      const int64_t partner = last_of(is_gpu[i] ? cpu_side : gpu_side, e.correlation);
      if (partner >= 0) link = partner;
    }
    e.hta_index_correlation = static_cast<int32_t>(std::clamp<int64_t>(link, INT32_MIN, INT32_MAX));
  }
}

// The iteration number of a ProfilerStep name as HTA's add_iteration reads it
// (re.match(r"ProfilerStep\s*#\s*(\d+)")); -1 when it does not match (HTA then fails).
int64_t ProfilerStepNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep";
  if (!StartsWith(name, kPrefix)) return -1;
  size_t i = kPrefix.size();
  auto skip_space = [&] {
    while (i < name.size() && std::isspace(static_cast<unsigned char>(name[i]))) ++i;
  };
  skip_space();
  if (i >= name.size() || name[i] != '#') return -1;
  ++i;
  skip_space();
  int64_t number = 0;
  const char* end = name.data() + name.size();
  auto [rest, error] = std::from_chars(name.data() + i, end, number);
  if (error != std::errc() || rest == name.data() + i || number > INT32_MAX) return -1;
  return number;
}

// HTA's add_iteration over its frame `rows` (before the drop): a CPU row (stream < 0) is in the
// last ProfilerStep, in file order, with step.ts <= ts < step.ts + step.dur (-1 in none); a GPU
// row (stream > 0) takes the iteration of the row its index_correlation labels (-1 when that is
// not > 0); a row on stream 0 gets none (NaN). By file_index.
std::vector<int32_t> HtaIterations(const Trace& trace, const std::vector<TraceEvent>& rows,
                                   bool* any_nan) {
  struct Step {
    int64_t begin, end;
    int32_t number;
    uint32_t file_index;
  };
  std::vector<Step> steps;
  uint32_t last_index = 0;
  for (const TraceEvent& e : rows) {
    last_index = std::max(last_index, e.file_index);
    const int64_t number = ProfilerStepNumber(trace.Name(e));
    if (number >= 0) {
      steps.push_back({e.ts_ns, e.end_ns(), static_cast<int32_t>(number), e.file_index});
    }
  }
  std::sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.file_index < b.file_index; });
  std::vector<Step> by_begin = steps;
  std::stable_sort(by_begin.begin(), by_begin.end(),
                   [](const Step& a, const Step& b) { return a.begin < b.begin; });
  bool disjoint = true;
  for (size_t i = 1; i < by_begin.size(); ++i) disjoint &= by_begin[i - 1].end <= by_begin[i].begin;
  auto step_of = [&](int64_t ts) -> int32_t {
    if (disjoint) {  // at most one step holds ts: the last to begin at or before it
      auto it = std::upper_bound(by_begin.begin(), by_begin.end(), ts,
                                 [](int64_t t, const Step& s) { return t < s.begin; });
      if (it == by_begin.begin()) return -1;
      --it;
      return ts < it->end ? it->number : -1;
    }
    int32_t number = -1;
    for (const Step& s : steps) {
      if (s.begin <= ts && ts < s.end) number = s.number;
    }
    return number;
  };
  std::vector<int32_t> iterations(rows.empty() ? 0 : size_t{last_index} + 1, kHtaNoIteration);
  for (const TraceEvent& e : rows) {
    if (e.stream < 0) iterations[e.file_index] = step_of(e.ts_ns);
  }
  // GPU rows read the CPU rows' values (pandas computes the whole right-hand side first).
  std::vector<std::pair<uint32_t, int32_t>> gpu;
  for (const TraceEvent& e : rows) {
    if (e.stream == 0) *any_nan = true;
    if (e.stream <= 0) continue;
    const int64_t label = e.hta_index_correlation;
    int32_t value = -1;
    if (label > 0) {
      value =
          static_cast<uint64_t>(label) < iterations.size() ? iterations[label] : kHtaNoIteration;
      if (value == kHtaNoIteration) *any_nan = true;
    }
    gpu.emplace_back(e.file_index, value);
  }
  for (const auto& [index, value] : gpu) iterations[index] = value;
  return iterations;
}

// HTA's frame over `rows` (before the drop): iterations, symbols, every column's range, the first
// ts.
void RecordHtaFrameColumns(Trace& trace, const std::vector<TraceEvent>& rows) {
  trace.hta_iteration_nan = false;
  trace.hta_iterations = HtaIterations(trace, rows, &trace.hta_iteration_nan);
  // HTA's local symbol table: set(cat.unique()) | set(name.unique()), each unique in file order:
  // the distinct ids ordered by the file position where each first appears.
  auto first_appearances = [&](auto id_of) {
    std::vector<uint32_t> first(trace.strings.size(), UINT32_MAX);
    for (const TraceEvent& e : rows) first[id_of(e)] = std::min(first[id_of(e)], e.file_index);
    std::vector<uint32_t> ids;
    for (uint32_t id = 0; id < first.size(); ++id) {
      if (first[id] != UINT32_MAX) ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) { return first[a] < first[b]; });
    return ids;
  };
  trace.hta_symbol_categories = first_appearances([](const TraceEvent& e) { return e.category; });
  trace.hta_symbol_names = first_appearances([](const TraceEvent& e) { return e.name; });
  // The waits are in file order (the parser appends them as it goes).
  const std::vector<Trace::EventWait>& waits = trace.event_waits;
  auto wait_of = [&](uint32_t file_index) -> const Trace::EventWait* {
    if (waits.empty()) return nullptr;
    auto it = std::lower_bound(
        waits.begin(), waits.end(), file_index,
        [](const Trace::EventWait& w, uint32_t index) { return w.file_index < index; });
    return it != waits.end() && it->file_index == file_index ? &*it : nullptr;
  };
  trace.hta_first_ts_ns = INT64_MAX;
  trace.hta_ts_us = trace.hta_dur_us = trace.hta_stream = trace.hta_correlation =
      trace.hta_file_index = trace.hta_pid = trace.hta_tid = trace.hta_bytes =
          trace.hta_external_id = trace.hta_index_correlation = trace.hta_wait_on_stream =
              trace.hta_wait_on_event = trace.hta_iteration = Trace::HtaRange{};
  for (const TraceEvent& e : rows) {
    trace.hta_first_ts_ns = std::min(trace.hta_first_ts_ns, e.ts_ns);
    trace.hta_ts_us.Add(e.ts_ns / 1000);
    trace.hta_dur_us.Add(e.dur_ns / 1000);
    trace.hta_stream.Add(e.stream);
    trace.hta_correlation.Add(e.correlation);
    trace.hta_file_index.Add(e.file_index);
    trace.hta_pid.Add(e.pid);
    trace.hta_tid.Add(e.tid);
    trace.hta_bytes.Add(e.bytes);
    trace.hta_external_id.Add(e.external_id);
    trace.hta_index_correlation.Add(e.hta_index_correlation);
    const Trace::EventWait* wait = wait_of(e.file_index);
    trace.hta_wait_on_stream.Add(wait == nullptr ? -1 : wait->stream);
    trace.hta_wait_on_event.Add(wait == nullptr ? -1 : wait->record_correlation);
    const int32_t iteration = trace.hta_iterations[e.file_index];
    if (iteration != kHtaNoIteration) trace.hta_iteration.Add(iteration);
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

namespace {

// The rows HTA keeps, its stream reading, rounding, index_correlation and frame columns.
void RewriteForHta(Trace& trace) {
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
  RecordHtaFrameColumns(trace, kept);
  trace.events = std::move(kept);
}

// HTA's _filter_irrelevant_gpu_kernels on a rewritten rank: the CPU events kept (drop: those
// starting before the last ProfilerStep's start; include: those whose ts, aligned to the run's
// first timestamp, is at most the last step's end, which HTA leaves unaligned, so in practice
// all), then the GPU kernels a kept CPU event has the correlation of (once per such event: HTA's
// inner merge repeats a kernel for each).
void FilterLastStep(Trace& trace, HtaLastStep last_step, int64_t run_first_ts_ns) {
  trace.hta_dropped_last_step = true;
  int64_t last_step_start = INT64_MIN;
  int64_t last_step_end = INT64_MIN;
  bool has_step = false;
  for (const TraceEvent& e : trace.events) {
    if (IsHtaGpuKernel(trace, e)) continue;
    if (trace.Name(e).find("ProfilerStep") == std::string_view::npos) continue;
    has_step = true;
    last_step_start = std::max(last_step_start, e.ts_ns);
    last_step_end = std::max(last_step_end, e.end_ns());
  }
  auto kept_cpu = [&](const TraceEvent& e) {
    if (!has_step) return false;
    return last_step == HtaLastStep::kDrop ? e.ts_ns < last_step_start
                                           : e.ts_ns - run_first_ts_ns <= last_step_end;
  };
  std::vector<int64_t> cpu_correlations;  // of the kept CPU events, sorted (repeats counted)
  std::vector<TraceEvent> cpu, gpu;
  for (const TraceEvent& e : trace.events) {
    if (IsHtaGpuKernel(trace, e)) {
      gpu.push_back(e);
    } else if (kept_cpu(e)) {
      cpu.push_back(e);
      cpu_correlations.push_back(e.correlation);
    }
  }
  std::sort(cpu_correlations.begin(), cpu_correlations.end());
  std::vector<TraceEvent> out;
  out.reserve(cpu.size() + gpu.size());
  for (const TraceEvent& e : gpu) {
    auto [first, last] =
        std::equal_range(cpu_correlations.begin(), cpu_correlations.end(), e.correlation);
    if (first == last) continue;
    // A sync event without a correlation would match every CPU event without one: kept once.
    const int64_t copies = e.correlation < 0 ? 1 : last - first;
    for (int64_t c = 0; c < copies; ++c) out.push_back(e);
  }
  out.insert(out.end(), cpu.begin(), cpu.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.ts_ns < b.ts_ns; });
  trace.events = std::move(out);
}

}  // namespace

void ApplyHtaConvention(Trace& trace, bool drop_last_profiler_step) {
  RewriteForHta(trace);
  trace.hta_dropped_last_step = false;
  if (drop_last_profiler_step) FilterLastStep(trace, HtaLastStep::kDrop, 0);
}

int ApplyHtaConvention(TraceRun& run, HtaLastStep last_step) {
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
  int64_t run_first_ts_ns = INT64_MAX;  // HTA's alignment: the smallest ts of the run's frames
  for (Trace& t : run.ranks) {
    // The rank a file is read as: HTA finds `"rank": N` in the text, i.e. distributedInfo's.
    if (!t.has_distributed_info) t.rank = 0;
    RewriteForHta(t);
    t.hta_dropped_last_step = false;
    run_first_ts_ns = std::min(run_first_ts_ns, t.hta_first_ts_ns);
  }
  if (step_names.size() >= 2) {
    for (Trace& t : run.ranks) FilterLastStep(t, last_step, run_first_ts_ns);
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

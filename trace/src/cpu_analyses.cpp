// CPU operator times and per-iteration (ProfilerStep#N) breakdown.
#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "analysis_util.h"

namespace xpuperf::trace {
namespace {

uint64_t ThreadKey(int32_t pid, int32_t tid) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) | static_cast<uint32_t>(tid);
}

std::vector<OperatorStat> TopByExclusive(std::unordered_map<uint32_t, OperatorStat>& stats,
                                         const Trace& trace, size_t top_k) {
  std::vector<OperatorStat> result;
  for (auto& [name, stat] : stats) {
    stat.name = std::string(trace.strings.Get(name));
    result.push_back(stat);
  }
  std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) {
    return a.exclusive_ns != b.exclusive_ns ? a.exclusive_ns > b.exclusive_ns : a.name < b.name;
  });
  if (result.size() > top_k) result.resize(top_k);
  return result;
}

constexpr std::string_view kStepPrefix = "ProfilerStep#";

}  // namespace

OperatorBreakdown ComputeOperatorBreakdown(const Trace& trace, size_t top_k) {
  OperatorBreakdown result;
  result.rank = trace.rank;
  std::unordered_map<uint64_t, std::vector<uint32_t>> stacks;  // per thread, open cpu_ops
  std::vector<int64_t> child_time(trace.events.size(), 0);
  std::vector<uint32_t> ops;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.kind != EventKind::kCpuOp) continue;
    ops.push_back(i);
    auto& stack = stacks[ThreadKey(e.pid, e.tid)];
    while (!stack.empty() && trace.events[stack.back()].end_ns() <= e.ts_ns) stack.pop_back();
    if (!stack.empty()) child_time[stack.back()] += e.dur_ns;
    stack.push_back(i);
  }
  std::unordered_map<uint32_t, OperatorStat> by_name, by_module;
  for (uint32_t i : ops) {
    const TraceEvent& e = trace.events[i];
    int64_t exclusive = std::max<int64_t>(0, e.dur_ns - child_time[i]);
    OperatorStat& s = by_name[e.name];
    ++s.count;
    s.inclusive_ns += e.dur_ns;
    s.exclusive_ns += exclusive;
    if (e.module != 0) {
      OperatorStat& m = by_module[e.module];
      ++m.count;
      m.inclusive_ns += e.dur_ns;
      m.exclusive_ns += exclusive;
    }
  }
  result.total_ops = static_cast<int64_t>(ops.size());
  result.by_name = TopByExclusive(by_name, trace, top_k);
  result.by_module = TopByExclusive(by_module, trace, top_k);
  return result;
}

IterationBreakdown ComputeIterationBreakdown(const Trace& trace) {
  IterationBreakdown result;
  result.rank = trace.rank;
  internal::KernelClassCache classes(trace);
  std::unordered_map<uint32_t, const TraceEvent*> gpu_windows;  // GPU-side step annotations
  for (const TraceEvent& e : trace.events) {
    if (e.kind == EventKind::kGpuUserAnnotation && trace.Name(e).rfind(kStepPrefix, 0) == 0) {
      gpu_windows.emplace(e.name, &e);
    }
  }
  std::vector<Interval> loader;
  std::vector<int8_t> is_loader(trace.strings.size(), -1);  // per name, computed once
  for (const TraceEvent& e : trace.events) {
    if (e.kind != EventKind::kCpuOp && e.kind != EventKind::kUserAnnotation) continue;
    int8_t& known = is_loader[e.name];
    if (known < 0) known = trace.Name(e).find("DataLoader") != std::string_view::npos;
    if (known) loader.push_back({e.ts_ns, e.end_ns()});
  }
  MergeIntervals(loader);
  auto by_ts = [](const TraceEvent& e, int64_t ts) { return e.ts_ns < ts; };
  for (const TraceEvent& e : trace.events) {
    if (e.kind != EventKind::kUserAnnotation) continue;
    std::string_view name = trace.Name(e);
    if (name.rfind(kStepPrefix, 0) != 0) continue;
    IterationStat step;
    step.step = std::atoll(std::string(name.substr(kStepPrefix.size())).c_str());
    step.start_ns = e.ts_ns;
    step.duration_ns = e.dur_ns;
    auto gpu = gpu_windows.find(e.name);
    int64_t begin = gpu != gpu_windows.end() ? gpu->second->ts_ns : e.ts_ns;
    int64_t end = gpu != gpu_windows.end() ? gpu->second->end_ns() : e.end_ns();
    std::vector<Interval> busy;
    for (auto it = std::lower_bound(trace.events.begin(), trace.events.end(), begin, by_ts);
         it != trace.events.end() && it->ts_ns < end; ++it) {
      if (!IsGpuOp(it->kind)) continue;
      busy.push_back({it->ts_ns, it->end_ns()});
      ++step.kernels;
      switch (classes.Of(*it)) {
        case KernelClass::kCompute:
          step.compute_ns += it->dur_ns;
          break;
        case KernelClass::kComm:
          step.comm_ns += it->dur_ns;
          break;
        case KernelClass::kMemory:
          step.memory_ns += it->dur_ns;
          break;
      }
    }
    step.gpu_busy_ns = MergeIntervals(busy);
    std::vector<Interval> window{{e.ts_ns, e.end_ns()}};
    step.dataloader_ns = IntersectionLength(loader, window);
    result.steps.push_back(step);
  }
  std::sort(result.steps.begin(), result.steps.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  return result;
}

}  // namespace xpuperf::trace

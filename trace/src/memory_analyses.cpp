// memcpy/memset bandwidth and the [memory] allocator events.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis_util.h"

namespace xpuperf::trace {
namespace {

std::string CopyKind(std::string_view name, EventKind kind) {
  if (kind == EventKind::kMemset) return "Memset";
  static constexpr std::string_view kKinds[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP",
                                                "DtoA", "AtoD", "AtoH", "HtoA", "AtoA"};
  for (auto k : kKinds) {
    if (name.find(k) != std::string_view::npos) return std::string(k);
  }
  return "other";
}

uint64_t ThreadKey(int32_t pid, int32_t tid) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(pid)) << 32) | static_cast<uint32_t>(tid);
}

}  // namespace

MemcpyBandwidth ComputeMemcpyBandwidth(const Trace& trace) {
  MemcpyBandwidth result;
  result.rank = trace.rank;
  std::map<std::string, CopyKindStats> kinds;
  std::map<std::string, std::vector<std::pair<int64_t, double>>> rate_steps;
  for (const TraceEvent& e : trace.events) {
    if (e.kind != EventKind::kMemcpy && e.kind != EventKind::kMemset) continue;
    std::string kind = CopyKind(trace.Name(e), e.kind);
    CopyKindStats& stats = kinds[kind];
    stats.kind = kind;
    ++stats.count;
    stats.busy_ns += e.dur_ns;
    if (trace.Name(e).find("Pageable") != std::string_view::npos) ++stats.pageable;
    if (e.bytes > 0) {
      stats.bytes += e.bytes;
      if (e.dur_ns > 0) {
        double gbps = static_cast<double>(e.bytes) / static_cast<double>(e.dur_ns);  // B/ns = GB/s
        rate_steps[kind].push_back({e.ts_ns, gbps});
        rate_steps[kind].push_back({e.end_ns(), -gbps});
      }
    }
  }
  for (auto& [kind, stats] : kinds) {
    stats.gbps = stats.busy_ns > 0
                     ? static_cast<double>(stats.bytes) / static_cast<double>(stats.busy_ns)
                     : 0;
    auto& steps = rate_steps[kind];
    std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    double running = 0;
    for (const auto& [ts, delta] : steps) {
      running += delta;
      stats.peak_concurrent_gbps = std::max(stats.peak_concurrent_gbps, running);
    }
    result.kinds.push_back(stats);
  }
  return result;
}

MemoryEventsSummary ComputeMemoryEvents(const Trace& trace, size_t top_k) {
  MemoryEventsSummary result;
  result.rank = trace.rank;
  result.events = static_cast<int64_t>(trace.memory.size());
  std::map<std::pair<int, int>, DeviceMemory> devices;
  for (const MemorySample& m : trace.memory) {
    DeviceMemory& d = devices[{m.device_type, m.device_id}];
    d.device_type = m.device_type;
    d.device_id = m.device_id;
    if (m.bytes > 0) ++d.allocations;
    if (m.bytes < 0) ++d.frees;
    if (m.total_allocated > d.peak_allocated) {
      d.peak_allocated = m.total_allocated;
      d.peak_ts_ns = m.ts_ns;
    }
    d.peak_reserved = std::max(d.peak_reserved, m.total_reserved);
  }
  for (auto& [key, d] : devices) {
    if (d.device_type == 1) d.total_memory = trace.DeviceMemory(d.device_id);
    result.devices.push_back(d);
  }
  // Allocation sites: the innermost CPU op enclosing each allocation on its own thread.
  std::unordered_map<uint64_t, std::vector<uint32_t>> ops_by_thread;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.kind == EventKind::kCpuOp) ops_by_thread[ThreadKey(e.pid, e.tid)].push_back(i);
  }
  std::unordered_map<uint64_t, std::vector<const MemorySample*>> allocs_by_thread;
  for (const MemorySample& m : trace.memory) {
    if (m.bytes > 0) allocs_by_thread[ThreadKey(m.pid, m.tid)].push_back(&m);
  }
  std::map<std::string, AllocationSite> sites;
  for (auto& [thread, allocs] : allocs_by_thread) {
    const std::vector<uint32_t>& ops = ops_by_thread[thread];
    std::vector<uint32_t> stack;
    size_t next = 0;
    for (const MemorySample* m : allocs) {
      while (next < ops.size() && trace.events[ops[next]].ts_ns <= m->ts_ns) {
        while (!stack.empty() &&
               trace.events[stack.back()].end_ns() < trace.events[ops[next]].ts_ns) {
          stack.pop_back();
        }
        stack.push_back(ops[next++]);
      }
      while (!stack.empty() && trace.events[stack.back()].end_ns() < m->ts_ns) stack.pop_back();
      std::string op =
          stack.empty() ? "(none)" : std::string(trace.Name(trace.events[stack.back()]));
      AllocationSite& site = sites[op];
      site.op = op;
      ++site.allocations;
      site.bytes += m->bytes;
    }
  }
  for (auto& [name, site] : sites) result.top_sites.push_back(site);
  std::sort(result.top_sites.begin(), result.top_sites.end(), [](const auto& a, const auto& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.op < b.op;
  });
  if (result.top_sites.size() > top_k) result.top_sites.resize(top_k);
  return result;
}

}  // namespace xpuperf::trace

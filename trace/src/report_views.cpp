#include "xpuperf/trace/report_views.h"

#include <fmt/format.h>

#include <string>

#include "xpuperf/core/units_text.h"

namespace xpuperf::trace {
namespace {

Cell Rank(int rank) { return Cell::Text(std::to_string(rank)); }

Cell Share(int64_t part, int64_t whole) {
  return whole > 0 ? Cell::Fraction(static_cast<double>(part) / static_cast<double>(whole))
                   : Cell::Text("-");
}

}  // namespace

Table TemporalTable(const RunReport& report) {
  Table t{"Temporal breakdown (GPU window = first to last GPU op)",
          "temporal",
          {{"rank", "rank"},
           {"window", "window_ns"},
           {"compute", "compute_ns"},
           {"non-compute", "non_compute_ns"},
           {"idle", "idle_ns"},
           {"GPU ops", "gpu_ops"}},
          {}};
  for (const RankReport& r : report.ranks) {
    const auto& b = r.evidence.temporal;
    t.rows.push_back({Rank(r.evidence.rank), Cell::Ns(b.window_ns),
                      Cell::NsShare(b.compute_ns, b.window_ns),
                      Cell::NsShare(b.non_compute_ns, b.window_ns),
                      Cell::NsShare(b.idle_ns, b.window_ns), Cell::Count(b.gpu_ops)});
  }
  return t;
}

Table IdleTable(const RunReport& report) {
  Table t{"Idle time by stream (gaps between consecutive GPU ops)",
          "idle",
          {{"rank", "rank"},
           {"device", "device"},
           {"stream", "stream"},
           {"idle", "idle_ns"},
           {"host wait", "host_wait_ns"},
           {"kernel wait", "kernel_wait_ns"},
           {"other", "other_ns"},
           {"gaps", "gaps"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& s : r.evidence.idle.streams) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(std::to_string(s.device)),
                        Cell::Text(std::to_string(s.stream)), Cell::Ns(s.idle_ns),
                        Cell::Ns(s.host_wait_ns), Cell::Ns(s.kernel_wait_ns), Cell::Ns(s.other_ns),
                        Cell::Count(s.gaps)});
    }
  }
  return t;
}

std::vector<Table> KernelTables(const RankReport& rank, size_t top_k) {
  const auto& k = rank.evidence.kernels;
  if (k.total_ns == 0 && k.class_count[0] + k.class_count[1] + k.class_count[2] == 0) return {};
  Table classes{fmt::format("Kernel classes, rank {}", rank.evidence.rank),
                "classes",
                {{"class", "class"}, {"count", "count"}, {"time", "total_ns"}, {"share", "share"}},
                {}};
  for (int c = 0; c < 3; ++c) {
    classes.rows.push_back({Cell::Text(std::string(KernelClassName(static_cast<KernelClass>(c)))),
                            Cell::Count(k.class_count[c]), Cell::Ns(k.class_total_ns[c]),
                            Share(k.class_total_ns[c], k.total_ns)});
  }
  classes.columns[3].align = Column::Align::kRight;
  Table top{fmt::format("Top {} GPU ops by time, rank {} ({} distinct)", top_k, rank.evidence.rank,
                        k.distinct_kernels),
            "top",
            {{"kernel", "name"},
             {"class", "class"},
             {"count", "count"},
             {"total", "total_ns"},
             {"mean", "mean_ns"},
             {"min", "min_ns"},
             {"max", "max_ns"},
             {"std", "std_ns"}},
            {}};
  for (const auto& s : k.top) {
    top.rows.push_back(
        {Cell::Text(s.name), Cell::Text(std::string(KernelClassName(s.kernel_class))),
         Cell::Count(s.duration.count), Cell::Ns(s.duration.total_ns),
         Cell::Ns(static_cast<int64_t>(s.duration.mean_ns)), Cell::Ns(s.duration.min_ns),
         Cell::Ns(s.duration.max_ns), Cell::Ns(static_cast<int64_t>(s.duration.std_ns))});
  }
  return {std::move(classes), std::move(top)};
}

std::vector<Table> OperatorTables(const RankReport& rank, size_t top_k) {
  const auto& o = rank.evidence.operators;
  if (o.by_name.empty()) return {};
  std::vector<Table> tables;
  Table by_name{fmt::format("Top {} CPU ops by exclusive time, rank {}", top_k, rank.evidence.rank),
                "by_name",
                {{"op", "name"},
                 {"count", "count"},
                 {"inclusive", "inclusive_ns"},
                 {"exclusive", "exclusive_ns"}},
                {}};
  for (const auto& s : o.by_name) {
    by_name.rows.push_back({Cell::Text(s.name), Cell::Count(s.count), Cell::Ns(s.inclusive_ns),
                            Cell::Ns(s.exclusive_ns)});
  }
  tables.push_back(std::move(by_name));
  if (!o.by_module.empty()) {
    Table by_module{fmt::format("CPU time by module, rank {}", rank.evidence.rank),
                    "by_module",
                    {{"module", "name"},
                     {"ops", "count"},
                     {"inclusive", "inclusive_ns"},
                     {"exclusive", "exclusive_ns"}},
                    {}};
    for (const auto& s : o.by_module) {
      by_module.rows.push_back({Cell::Text(s.name), Cell::Count(s.count), Cell::Ns(s.inclusive_ns),
                                Cell::Ns(s.exclusive_ns)});
    }
    tables.push_back(std::move(by_module));
  }
  return tables;
}

Table GemmTable(const RunReport& report, size_t top_k) {
  Table t{"GEMM shapes (roofline points: FLOPs = 2*M*N*K*batch per call; time of all calls)",
          "gemm",
          {{"rank", "rank"},
           {"op", "op"},
           {"M x N x K (batch)", "shape"},
           {"dtype", "dtype"},
           {"calls", "calls"},
           {"time", "time_ns"},
           {"TFLOP/s", "tflops_per_second", Column::Align::kAuto, 3},
           {"FLOP/byte", "flops_per_byte", Column::Align::kAuto, 1}},
          {}};
  for (const RankReport& r : report.ranks) {
    size_t shown = 0;
    for (const GemmPoint& p : r.gemm) {
      if (shown++ >= top_k) break;
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(p.op),
                        Cell::Text(fmt::format("{} x {} x {} ({})", p.m, p.n, p.k, p.batch)),
                        Cell::Text(p.dtype.empty() ? "?" : p.dtype), Cell::Count(p.calls),
                        Cell::Ns(p.time_ns), Cell::Number(p.FlopsPerSecond() / 1e12),
                        Cell::Number(p.flops / p.bytes)});
    }
  }
  return t;
}

std::vector<Table> CriticalPathTables(const RankReport& rank) {
  const CriticalPath& p = rank.evidence.critical_path;
  if (p.length_ns <= 0) return {};
  auto share = [&](int64_t ns) { return Cell::Fraction(static_cast<double>(ns) / p.length_ns); };
  Table categories{
      fmt::format("Critical path over {}, rank {}: {} ({}), {:.1f}% of it host work, {} GPU ops",
                  p.window, rank.evidence.rank,
                  FormatSeconds(static_cast<double>(p.length_ns) / 1e9), p.verdict,
                  100.0 * static_cast<double>(p.host_ns) / p.length_ns, p.gpu_ops),
      "categories",
      {{"category", "category"}, {"time", "ns"}, {"share", "share"}},
      {}};
  for (int k = 0; k < kPathCategories; ++k) {
    if (p.category_ns[k] == 0) continue;
    categories.rows.push_back(
        {Cell::Text(std::string(PathCategoryName(static_cast<PathCategory>(k)))),
         Cell::Ns(p.category_ns[k]), share(p.category_ns[k])});
  }
  Table items{fmt::format("Longest items on the critical path, rank {}", rank.evidence.rank),
              "top",
              {{"name", "name"}, {"category", "category"}, {"time", "ns"}, {"share", "share"}},
              {}};
  for (const CriticalPathItem& item : p.top) {
    items.rows.push_back({Cell::Text(item.name),
                          Cell::Text(std::string(PathCategoryName(item.category))),
                          Cell::Ns(item.ns), share(item.ns)});
  }
  return {std::move(categories), std::move(items)};
}

Table OverlapTable(const RunReport& report) {
  Table t{"Communication / computation overlap",
          "overlap",
          {{"rank", "rank"},
           {"comm", "comm_ns"},
           {"overlapped", "overlap_ns"},
           {"ratio", "ratio", Column::Align::kRight}},
          {}};
  for (const RankReport& r : report.ranks) {
    const auto& o = r.evidence.overlap;
    if (o.comm_ns == 0) continue;
    t.rows.push_back({Rank(r.evidence.rank), Cell::Ns(o.comm_ns), Cell::Ns(o.overlap_ns),
                      Share(o.overlap_ns, o.comm_ns)});
  }
  return t;
}

Table LaunchTable(const RunReport& report) {
  Table t{"Kernel launches (call <-> GPU op by correlation)",
          "launches",
          {{"rank", "rank"},
           {"matched", "matched", Column::Align::kRight},
           {"delay p50", "delay_p50_ns"},
           {"delay p90", "delay_p90_ns"},
           {"delay max", "delay_max_ns"},
           {"short kernels", "short_kernels"},
           {"calls > 50us", "long_launch_calls"},
           {"delay > 100us", "delayed_launches"}},
          {}};
  for (const RankReport& r : report.ranks) {
    const auto& l = r.evidence.launches;
    if (l.gpu_ops == 0) continue;
    t.rows.push_back({Rank(r.evidence.rank), Cell::Text(fmt::format("{}/{}", l.matched, l.gpu_ops)),
                      Cell::Ns(l.delay_p50_ns), Cell::Ns(l.delay_p90_ns), Cell::Ns(l.delay.max_ns),
                      Cell::Count(l.short_kernels), Cell::Count(l.long_launch_calls),
                      Cell::Count(l.delayed_launches)});
  }
  return t;
}

Table QueueTable(const RunReport& report) {
  Table t{"Launch queue length by stream",
          "queue",
          {{"rank", "rank"},
           {"device", "device"},
           {"stream", "stream"},
           {"max", "max_length"},
           {"mean", "mean_length"},
           {"time >= 1024", "time_at_or_above_limit_ns"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& s : r.queue.streams) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(std::to_string(s.device)),
                        Cell::Text(std::to_string(s.stream)), Cell::Count(s.max_length),
                        Cell::Number(s.mean_length), Cell::Ns(s.time_at_or_above_limit_ns)});
    }
  }
  return t;
}

Table MemcpyTable(const RunReport& report) {
  Table t{"Memory copies and sets (GB = 1e9 bytes)",
          "memcpy",
          {{"rank", "rank"},
           {"kind", "kind"},
           {"count", "count"},
           {"bytes", "bytes"},
           {"time", "busy_ns"},
           {"GB/s", "gbps"},
           {"peak GB/s", "peak_concurrent_gbps"},
           {"pageable", "pageable"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& k : r.evidence.memcpy.kinds) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(k.kind), Cell::Count(k.count),
                        Cell::Bytes(k.bytes), Cell::Ns(k.busy_ns), Cell::Number(k.gbps),
                        Cell::Number(k.peak_concurrent_gbps), Cell::Count(k.pageable)});
    }
  }
  return t;
}

Table IterationsTable(const RunReport& report) {
  Table t{"Iterations (ProfilerStep#N)",
          "iterations",
          {{"rank", "rank"},
           {"step", "step"},
           {"duration", "duration_ns"},
           {"GPU busy", "gpu_busy_ns"},
           {"compute", "compute_ns"},
           {"comm", "comm_ns"},
           {"memory", "memory_ns"},
           {"GPU ops", "kernels"},
           {"DataLoader", "dataloader_ns"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& s : r.evidence.iterations.steps) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Count(s.step), Cell::Ns(s.duration_ns),
                        Cell::Ns(s.gpu_busy_ns), Cell::Ns(s.compute_ns), Cell::Ns(s.comm_ns),
                        Cell::Ns(s.memory_ns), Cell::Count(s.kernels), Cell::Ns(s.dataloader_ns)});
    }
  }
  return t;
}

Table AllocatorTable(const RunReport& report) {
  Table t{"Allocator ([memory] events)",
          "allocator",
          {{"rank", "rank"},
           {"device", "device"},
           {"peak allocated", "peak_allocated"},
           {"peak reserved", "peak_reserved"},
           {"device memory", "total_memory", Column::Align::kRight},
           {"allocs", "allocations"},
           {"frees", "frees"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& d : r.evidence.memory.devices) {
      const std::string type = d.device_type == 1   ? "cuda"
                               : d.device_type == 0 ? "cpu"
                                                    : std::to_string(d.device_type);
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(fmt::format("{}:{}", type, d.device_id)),
                        Cell::Bytes(d.peak_allocated), Cell::Bytes(d.peak_reserved),
                        d.total_memory > 0 ? Cell::Bytes(d.total_memory) : Cell::Text("-"),
                        Cell::Count(d.allocations), Cell::Count(d.frees)});
    }
  }
  return t;
}

Table StragglersTable(const RunReport& report) {
  Table t{fmt::format("Stragglers ({} collectives matched on every rank)",
                      report.stragglers.collectives),
          "stragglers",
          {{"rank", "rank"},
           {"started last", "last_count"},
           {"mean lateness", "mean_lateness_ns"},
           {"comm time", "comm_ns"}},
          {}};
  if (report.stragglers.collectives == 0) return t;
  for (const RankStraggle& s : report.stragglers.ranks) {
    t.rows.push_back({Rank(s.rank), Cell::Count(s.last_count),
                      Cell::Ns(static_cast<int64_t>(s.mean_lateness_ns)), Cell::Ns(s.comm_ns)});
  }
  return t;
}

}  // namespace xpuperf::trace

// The `hta` analysis: HTA's own tables for a rank read under `--convention hta` (hta_analyses.h):
// comm/compute overlap, time by kernel type, kernels by name, idle time by cause, launch
// statistics, queue length and memory bandwidth, with HTA's column names and its µs. Under the
// xpuperf convention it computes nothing (the other analyses give xpuperf's definitions).
// Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <limits>

#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/hta_analyses.h"

namespace xpuperf::trace {
namespace {

const std::vector<Column> kDescribeColumns = {{"count", "count"}, {"mean", "mean"}, {"std", "std"},
                                              {"min", "min"},     {"25%", "p25"},   {"50%", "p50"},
                                              {"75%", "p75"},     {"max", "max"}};

std::vector<Column> DescribeColumns(Column first) {
  std::vector<Column> columns = {std::move(first)};
  columns.insert(columns.end(), kDescribeColumns.begin(), kDescribeColumns.end());
  return columns;
}

std::vector<Cell> DescribeRow(Cell first, const HtaDescribe& d) {
  return {std::move(first),    Cell::Count(d.count), Cell::Number(d.mean),
          Cell::Number(d.std), Cell::Number(d.min),  Cell::Number(d.p25),
          Cell::Number(d.p50), Cell::Number(d.p75),  Cell::Number(d.max)};
}

Table OverlapTable(const Trace& trace) {
  const HtaOverlap overlap = ComputeHtaCommCompOverlap(trace);
  Table table{fmt::format("HTA comm/compute overlap, rank {}: share of merged communication-"
                          "kernel time overlapping computation kernels",
                          trace.rank),
              "comm_comp_overlap",
              {{"communication (us)", "comm_us"},
               {"overlapped (us)", "overlap_us"},
               {"comp_comm_overlap_pctg", "comp_comm_overlap_pctg"}},
              {}};
  table.rows.push_back(
      {Cell::Count(overlap.comm_us), Cell::Count(overlap.overlap_us),
       Cell::Number(overlap.has_comm ? overlap.pctg : std::numeric_limits<double>::quiet_NaN())});
  return table;
}

Table KernelTypeTable(const Trace& trace) {
  Table table{
      fmt::format("HTA time by kernel type, rank {} (union of each type's kernels)", trace.rank),
      "kernel_types",
      {{"kernel_type", "kernel_type"}, {"sum (us)", "sum_us"}, {"percentage", "percentage"}},
      {}};
  for (const HtaKernelTypeRow& row : ComputeHtaKernelTypes(trace)) {
    table.rows.push_back(
        {Cell::Text(row.kernel_type), Cell::Count(row.sum_us), Cell::Number(row.percentage)});
  }
  return table;
}

Table KernelTable(const Trace& trace) {
  Table table{fmt::format("HTA kernels by name, rank {} (top 10 per type or 80% of its time; the "
                          "rest as 'others')",
                          trace.rank),
              "kernels",
              {{"kernel_type", "kernel_type"},
               {"name", "name"},
               {"sum (us)", "sum_us"},
               {"max (us)", "max_us"},
               {"min (us)", "min_us"},
               {"mean (us)", "mean_us"},
               {"stddev", "stddev"}},
              {}};
  for (const HtaKernelRow& row : ComputeHtaKernels(trace)) {
    table.rows.push_back({Cell::Text(row.kernel_type), Cell::Text(row.name),
                          Cell::Number(row.sum_us), Cell::Number(row.max_us),
                          Cell::Number(row.min_us), Cell::Number(row.mean_us),
                          Cell::Number(row.std_us)});
  }
  return table;
}

Table IdleTable(const Trace& trace) {
  Table table{fmt::format("HTA idle time by cause, rank {} (per stream; kernel_wait: gaps under "
                          "30 us)",
                          trace.rank),
              "idle_time",
              {{"stream", "stream"},
               {"idle_category", "idle_category"},
               {"idle_time (us)", "idle_time_us"},
               {"idle_time_ratio", "idle_time_ratio"}},
              {}};
  for (const HtaIdleRow& row : ComputeHtaIdleTime(trace)) {
    table.rows.push_back({Cell::Count(row.stream), Cell::Text(row.category),
                          Cell::Number(row.idle_time_us), Cell::Number(row.idle_time_ratio)});
  }
  return table;
}

Table LaunchTable(const Trace& trace) {
  const HtaLaunchSummary launch = ComputeHtaLaunchStats(trace);
  Table table{fmt::format("HTA kernel launch statistics, rank {} (us; launch_delay = GPU start - "
                          "CPU end, clipped at 0)",
                          trace.rank),
              "launch_stats",
              DescribeColumns({"column", "column"}),
              {}};
  if (launch.cpu_duration.count == 0) return table;
  table.rows.push_back(DescribeRow(Cell::Text("cpu_duration"), launch.cpu_duration));
  table.rows.push_back(DescribeRow(Cell::Text("gpu_duration"), launch.gpu_duration));
  table.rows.push_back(DescribeRow(Cell::Text("launch_delay"), launch.launch_delay));
  return table;
}

Table MemoryBandwidthTable(const Trace& trace) {
  Table table{fmt::format("HTA memory bandwidth in use (GB/s), rank {}, over the points where it "
                          "is positive",
                          trace.rank),
              "memory_bw",
              DescribeColumns({"name", "name"}),
              {}};
  for (const HtaMemoryBwRow& row : ComputeHtaMemoryBandwidth(trace)) {
    table.rows.push_back(DescribeRow(Cell::Text(row.kind), row.memory_bw_gbps));
  }
  return table;
}

AnalysisOutput ComputeHtaTables(const Trace& trace, const AnalysisContext& /*context*/) {
  AnalysisOutput out;
  if (trace.convention != Convention::kHta) return out;
  out.tables.push_back(OverlapTable(trace));
  out.tables.push_back(KernelTypeTable(trace));
  out.tables.push_back(KernelTable(trace));
  out.tables.push_back(IdleTable(trace));
  out.tables.push_back(LaunchTable(trace));
  const HtaQueueSummary queue = ComputeHtaQueueLength(trace);
  Table queue_table{fmt::format("HTA queue length, rank {} (launched, not yet started; over its "
                                "change points, not weighted by time)",
                                trace.rank),
                    "queue_length",
                    DescribeColumns({"stream", "stream"}),
                    {}};
  for (const HtaQueueRow& row : queue.streams) {
    queue_table.rows.push_back(DescribeRow(Cell::Count(row.stream), row.queue_length));
  }
  out.tables.push_back(std::move(queue_table));
  if (!queue.problem.empty()) {
    out.fields.push_back({"queue_length_problem", Cell::Text(queue.problem)});
    out.tables.push_back({fmt::format("HTA queue length, rank {}: not computed", trace.rank),
                          "problems",
                          {{"problem", "problem"}},
                          {{Cell::Text(queue.problem)}}});
  }
  out.tables.push_back(MemoryBandwidthTable(trace));
  return out;
}

}  // namespace

extern const AnalysisDescriptor kHtaAnalysis = {
    .name = "hta",
    .title = "HTA's tables (--convention hta)",
    .json_key = "hta",
    .compute = ComputeHtaTables,
};

}  // namespace xpuperf::trace

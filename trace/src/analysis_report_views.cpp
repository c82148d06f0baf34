// The report views as registered analyses (analysis_registry.h): the analyses SummariseRank
// computes for the findings, whose JSON the report writes with its fixed schema (report.h), and
// whose tables (report_views.h) the text and the HTML show. Registered in registered_analyses.inc.
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/report.h"
#include "xpuperf/trace/report_views.h"

namespace xpuperf::trace {
namespace {

// The terminal shows these up to 80 columns a cell (names in the top-k tables: 60).
std::vector<Table> Wide(Table table) {
  table.max_cell_width = 80;
  return {std::move(table)};
}

std::vector<Table> TemporalView(const RunReport& report, size_t) {
  return Wide(TemporalTable(report));
}
std::vector<Table> IdleView(const RunReport& report, size_t) { return Wide(IdleTable(report)); }
std::vector<Table> KernelsView(const RunReport& report, size_t top_k) {
  std::vector<Table> tables;
  for (const RankReport& r : report.ranks) {
    std::vector<Table> rank = KernelTables(r, top_k);
    if (!rank.empty()) rank[0].max_cell_width = 80;  // the classes
    for (Table& t : rank) tables.push_back(std::move(t));
  }
  return tables;
}
std::vector<Table> OverlapView(const RunReport& report, size_t) {
  return Wide(OverlapTable(report));
}
std::vector<Table> LaunchView(const RunReport& report, size_t) { return Wide(LaunchTable(report)); }
std::vector<Table> QueueView(const RunReport& report, size_t) { return Wide(QueueTable(report)); }
std::vector<Table> MemcpyView(const RunReport& report, size_t) { return Wide(MemcpyTable(report)); }
std::vector<Table> OperatorsView(const RunReport& report, size_t top_k) {
  std::vector<Table> tables;
  for (const RankReport& r : report.ranks) {
    for (Table& t : OperatorTables(r, top_k)) tables.push_back(std::move(t));
  }
  return tables;
}
std::vector<Table> CriticalPathView(const RunReport& report, size_t) {
  std::vector<Table> tables;
  for (const RankReport& r : report.ranks) {
    for (Table& t : CriticalPathTables(r)) {
      t.show_empty = true;  // "no item" is worth its header
      tables.push_back(std::move(t));
    }
  }
  return tables;
}
std::vector<Table> IterationsView(const RunReport& report, size_t) {
  return Wide(IterationsTable(report));
}
std::vector<Table> MemoryView(const RunReport& report, size_t) {
  return Wide(AllocatorTable(report));
}
std::vector<Table> StragglersView(const RunReport& report, size_t) {
  return Wide(StragglersTable(report));
}
std::vector<Table> GemmView(const RunReport& report, size_t top_k) {
  return Wide(GemmTable(report, top_k));
}

}  // namespace

extern const AnalysisDescriptor kTemporalAnalysis = {
    .name = "temporal", .title = "Temporal breakdown", .json_key = "", .view = TemporalView};
extern const AnalysisDescriptor kIdleAnalysis = {
    .name = "idle", .title = "Idle time by stream", .json_key = "", .view = IdleView};
extern const AnalysisDescriptor kKernelsAnalysis = {
    .name = "kernels", .title = "Kernels", .json_key = "", .view = KernelsView};
extern const AnalysisDescriptor kOverlapAnalysis = {.name = "overlap",
                                                    .title = "Communication / computation overlap",
                                                    .json_key = "",
                                                    .view = OverlapView};
extern const AnalysisDescriptor kLaunchAnalysis = {
    .name = "launch", .title = "Kernel launches", .json_key = "", .view = LaunchView};
extern const AnalysisDescriptor kQueueAnalysis = {
    .name = "queue", .title = "Launch queue length", .json_key = "", .view = QueueView};
extern const AnalysisDescriptor kMemcpyAnalysis = {
    .name = "memcpy", .title = "Memory copies and sets", .json_key = "", .view = MemcpyView};
extern const AnalysisDescriptor kOperatorsAnalysis = {
    .name = "operators", .title = "CPU operators", .json_key = "", .view = OperatorsView};
extern const AnalysisDescriptor kCriticalPathAnalysis = {
    .name = "critical_path", .title = "Critical path", .json_key = "", .view = CriticalPathView};
extern const AnalysisDescriptor kIterationsAnalysis = {
    .name = "iterations", .title = "Iterations", .json_key = "", .view = IterationsView};
extern const AnalysisDescriptor kMemoryAnalysis = {
    .name = "memory", .title = "Allocator", .json_key = "", .view = MemoryView};
extern const AnalysisDescriptor kStragglersAnalysis = {
    .name = "stragglers", .title = "Stragglers", .json_key = "", .view = StragglersView};
extern const AnalysisDescriptor kGemmAnalysis = {
    .name = "gemm", .title = "GEMM shapes", .json_key = "", .view = GemmView};

}  // namespace xpuperf::trace

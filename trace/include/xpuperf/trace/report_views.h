// The run report's cross-rank tables as tables of the output model (analysis_registry.h): one
// table per analysis, a row per rank (or per rank and stream, step, device...), which analyze's
// text and its HTML report both render, so the two show the same tables. The JSON keeps its own
// schema (report.h, ToJson); these tables are for reading.
#pragma once

#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {

Table TemporalTable(const RunReport& report);  // the GPU window per rank
Table IdleTable(const RunReport& report);      // idle time per stream
// Per rank: the kernel classes, then the top_k GPU ops by time (none without GPU ops).
std::vector<Table> KernelTables(const RankReport& rank, size_t top_k);
// Per rank: CPU ops by exclusive time, then by module where recorded (none without ops).
std::vector<Table> OperatorTables(const RankReport& rank, size_t top_k);
Table GemmTable(const RunReport& report, size_t top_k);  // GEMM shapes, top_k per rank
// Per rank: the critical path's time by category, then its longest items (none without a path).
std::vector<Table> CriticalPathTables(const RankReport& rank);
Table OverlapTable(const RunReport& report);     // comm/compute overlap per rank
Table LaunchTable(const RunReport& report);      // kernel launches per rank
Table QueueTable(const RunReport& report);       // launch queue length per stream
Table MemcpyTable(const RunReport& report);      // copies and sets by kind
Table IterationsTable(const RunReport& report);  // ProfilerStep#N per rank
Table AllocatorTable(const RunReport& report);   // [memory] events per device
Table StragglersTable(const RunReport& report);  // across the ranks of a directory

}  // namespace xpuperf::trace

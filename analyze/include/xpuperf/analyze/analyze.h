// `xpuperf analyze TRACE|DIR` and the trace side of `xpuperf compare A.json B.json`: the assembly
// of trace analysis (trace/), the telemetry overlay of a `record` directory (record/) and the MFU
// peaks of spec sheets (spec/, analysis/). cli/app/analyze_command.cpp binds the command line.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/render/table.h"
#include "xpuperf/trace/memory_timeline.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::analyze {

struct AnalyzeOptions {
  std::string path;  // trace file, directory of per-rank traces, or memory timeline
  std::vector<std::string> analyses;        // names from trace::AnalysisNames(); empty = all
  bool json = false;                        // everything as one JSON document on out
  std::string html;                         // also write a single-file HTML report here
  int top = 10;                             // rows of the top-k tables
  std::string convention = "xpuperf";       // "xpuperf" or "hta" (read and define as HTA does)
  bool include_last_profiler_step = false;  // with hta: HTA's include_last_profiler_step=True
  std::string critical_path_range;  // the critical path's window: a host range's name contains
                                    // this (empty: the last ProfilerStep#N, else from the first
                                    // GPU launch to the end)
  std::string telemetry;            // a `record --out` directory to lay over the trace
  std::string merged_trace;         // with telemetry: write ops + counter tracks here
  double telemetry_offset_s = 0;    // with telemetry: added to the trace's wall times
  std::string export_chrome;        // also write the run as Chrome-trace JSON here (Perfetto)
  // The peaks of the MFU analysis: "auto" (the trace's GPU's shipped sheet), "host" (this
  // machine's computed CPU sheet), "none", or a sheet's name or file (spec_argument.h).
  std::string spec = "auto";
  // Reads a directory in place of trace::ReadTraceRun (set under MPI: the files split over the
  // processes, command_analyze_mpi.cpp). Empty: ReadTraceRun.
  std::function<Result<trace::TraceRun>(const std::string& path)> read_directory;
  // --progress: a line on err per file of a directory read. Without it: when err is a terminal,
  // otherwise once the read has taken 10 s.
  bool progress = false;
};

// Terminal summary (what dominates, findings, advice), then the tables. Exit 0, 1 (unreadable or
// malformed trace), 2 (bad option, missing path).
int RunAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

// This process's place in a job an MPI launcher started, from the launcher's environment
// (Open MPI's OMPI_COMM_WORLD_RANK/SIZE, MPICH/Hydra's and Slurm's PMI_RANK/PMI_SIZE, PMIx's
// PMIX_RANK); nullopt when no launcher started it. size is -1 when the launcher does not say.
struct MpiLaunch {
  int rank = 0;
  int size = -1;
};
std::optional<MpiLaunch> DetectMpiLaunch();

// `analyze` in a job of several processes (DetectMpiLaunch): the files of a directory read by all
// of them, the run analysed and printed by process 0, byte for byte as one process prints it.
// Defined in builds with MPI only (XPUPERF_ANALYZE_MPI).
int RunAnalyzeOverMpi(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

// A few sentences on the traces of a capture directory, for a findings alert: ranks and events
// analysed, every finding's title, each rank's top ops by exclusive time (`capture --on-alert`).
Result<std::string> SummariseCapture(const std::string& dir);

struct TraceCompareOptions {
  std::string baseline;   // A
  std::string candidate;  // B
  bool json = false;
  int top = 20;  // rows per table
};

// Ops added/removed and count/time changes from A to B.
int RunTraceCompare(const TraceCompareOptions& options, std::ostream& out, std::ostream& err);

// Text and HTML renderings (exposed for tests).
std::string RenderAnalyzeText(const trace::RunReport& report,
                              const std::vector<std::string>& analyses, int top);
// One registered analysis's output: each table with rows, as a text table.
std::string RenderOutputText(const trace::AnalysisOutput& output);
// One table of the output model as text, and one value (render/table.h).
using render::FormatCell;
using render::RenderTableText;
std::string RenderMemoryTimelineText(const trace::MemoryTimelineSummary& summary);
std::string RenderAnalyzeHtml(const trace::TraceRun& run, const trace::RunReport& report, int top);

}  // namespace xpuperf::analyze

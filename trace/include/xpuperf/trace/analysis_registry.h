// Trace analyses as data. An analysis is a descriptor (its name, its heading and how to compute
// it) listed once in trace/src/registered_analyses.inc; what it computes is an AnalysisOutput of
// typed scalar fields and tables, and the text, JSON and HTML renderers of `xpuperf analyze`
// render any analysis's output from that alone (the model: google/benchmark's reporters, which
// render any benchmark's counters, and perfetto's registry of trace readers). The recipe
// (docs/TRACES.md, "Adding an analysis"): one new file trace/src/analysis_<name>.cpp defining the
// descriptor, one line in the list. Everything here is immutable once initialised (thread-safe).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/render/table.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

struct RankEvidence;
struct PeakFlops;
struct RunReport;
struct RankReport;

// The report model (cells, columns, tables, fields) is render's, shared with the other commands.
using render::Cell;
using render::CellKind;
using render::Column;
using render::Field;
using render::Table;

// What one analysis found in one rank (or, for a run-level analysis, in the run).
struct AnalysisOutput {
  std::vector<Field> fields;
  std::vector<Table> tables;
  // Sentences shown after the tables (the terminal wraps them, never cuts them) and written to
  // JSON as the array "notes": formulas, sources, what is missing and how to record it.
  std::vector<std::string> notes;
  bool HasRows() const;  // false: the terminal and HTML renderers leave it out
};

// What an analysis may read besides the trace: options and the evidence the findings use (so an
// analysis can reuse what SummariseRank computed instead of walking the events again).
struct AnalysisContext {
  size_t top_k = 10;
  std::string_view critical_path_range;
  const RankEvidence* evidence = nullptr;  // this rank's, never null in AnalyzeRun
  const PeakFlops* peaks = nullptr;        // the device's peak FLOP/s (MFU); null when not given
};

// An analysis is one of two kinds. A computed one (`compute`) makes each rank's AnalysisOutput,
// which the JSON, text and HTML render as they are. A report view (`view`) is an analysis that
// SummariseRank computes for the findings (report.h: its JSON has a fixed schema there); `view`
// turns the run's report into the tables the text and the HTML show, across ranks.
struct AnalysisDescriptor {
  std::string_view name;      // --analysis NAME
  std::string_view title;     // heading of its section in the HTML report
  std::string_view json_key;  // its object's key in a rank's JSON (run-level: in the document)
  // Per rank; pure (called concurrently for different ranks).
  AnalysisOutput (*compute)(const Trace& trace, const AnalysisContext& context) = nullptr;
  // The tables of a report view (its analysis_<name>.cpp); `top_k`: rows of its top-k tables.
  std::vector<Table> (*view)(const RunReport& report, size_t top_k) = nullptr;
  // A report view's JSON, with its fixed schema (report.h): its object in each rank's JSON, or, for
  // a run-level view (stragglers), its object in the document.
  nlohmann::json (*rank_json)(const RankReport& rank) = nullptr;
  nlohmann::json (*run_json)(const RunReport& report) = nullptr;
};

// The registered analyses, in the order of trace/src/registered_analyses.inc.
const std::vector<const AnalysisDescriptor*>& RegisteredAnalyses();
// nullptr when no registered analysis has that name.
const AnalysisDescriptor* FindRegisteredAnalysis(std::string_view name);

}  // namespace xpuperf::trace

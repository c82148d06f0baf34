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

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

struct RankEvidence;
struct PeakFlops;
struct RunReport;
struct RankReport;

// How a value is stored, shown in the terminal/HTML and written to JSON.
enum class CellKind {
  kText,      // string; left-aligned
  kCount,     // integer count; JSON integer
  kNs,        // duration, integer ns; shown as seconds with a unit; JSON integer ns
  kBytes,     // integer bytes; shown with a binary unit; JSON integer bytes
  kFraction,  // share in [0, 1]; shown as a percentage with one decimal; JSON number (fraction)
  kNumber,    // any real number; shown with two decimals; JSON number
  kFlops,     // a FLOP count; shown with an SI prefix ("1.77 GFLOP"); JSON number of FLOPs
  kFlopRate,  // FLOP/s; shown with an SI prefix ("312 TFLOP/s"); JSON number of FLOP/s
  kNsShare,   // a duration and its share of a whole: integer ns, number the fraction (NaN: no
              // whole); shown "1.2s 45.3%"; JSON integer ns
};

struct Cell {
  CellKind kind = CellKind::kText;
  int64_t integer = 0;  // kCount, kNs, kBytes
  double number = 0;    // kFraction, kNumber
  std::string text;     // kText

  static Cell Text(std::string value) { return {CellKind::kText, 0, 0, std::move(value)}; }
  static Cell Count(int64_t value) { return {CellKind::kCount, value, 0, {}}; }
  static Cell Ns(int64_t value) { return {CellKind::kNs, value, 0, {}}; }
  static Cell Bytes(int64_t value) { return {CellKind::kBytes, value, 0, {}}; }
  static Cell Fraction(double value) { return {CellKind::kFraction, 0, value, {}}; }
  static Cell Number(double value) { return {CellKind::kNumber, 0, value, {}}; }
  static Cell Flops(double value) { return {CellKind::kFlops, 0, value, {}}; }
  static Cell FlopRate(double value) { return {CellKind::kFlopRate, 0, value, {}}; }
  static Cell NsShare(int64_t ns, int64_t whole) {
    return {CellKind::kNsShare,
            ns,
            whole > 0 ? static_cast<double>(ns) / static_cast<double>(whole) : __builtin_nan(""),
            {}};
  }
};

struct Column {
  std::string header;    // terminal and HTML heading
  std::string json_key;  // key of this cell in each JSON row object; empty = not in the JSON
  // How the terminal aligns it: kAuto is left for text cells, right for the others.
  enum class Align : uint8_t { kAuto, kLeft, kRight } align = Align::kAuto;
  int8_t decimals = 2;  // of its kNumber cells
};

struct Table {
  std::string caption;   // terminal title (may carry the rank and a count)
  std::string json_key;  // the rows as a JSON array of objects under this key
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  // each row has one cell per column
  uint16_t max_cell_width = 60;         // the terminal elides the middle of longer cells
  bool show_empty = false;              // the terminal shows its header even without rows
};

struct Field {
  std::string json_key;  // scalar in the JSON object of the analysis (not shown in text)
  Cell value;
};

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

// The report model every command's tables can share: typed cells (a count, a duration, bytes, a
// fraction, a rate, a name) in tables with columns that say how they align and what their JSON key
// is, rendered the same way to the terminal (TextTable: fits the terminal, elides the middle of
// long names), to HTML and to JSON rows. `xpuperf analyze` renders every analysis through it
// (trace/analysis_registry.h); a command adds its table as data and gets all three forms.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace xpuperf::render {

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

// The text form of one value; `decimals` for a kNumber (its column's).
std::string FormatCell(const Cell& cell, int decimals = 2);
// "\n" then the table as the terminal shows it (TextTable); empty without rows unless the table
// asks to be shown.
std::string RenderTableText(const Table& table);
// A note as "  - " lines of at most 100 columns, broken between words (never cut).
std::string WrapNote(const std::string& note);
// The table as an HTML <table> (text cells cut at 120 characters), after its caption as a <p>
// when `with_caption`; empty without rows.
std::string RenderTableHtml(const Table& table, bool with_caption);
// The JSON of one value: integers for counts, ns and bytes, numbers for the others, text as text.
nlohmann::json CellJson(const Cell& cell);
// The rows as an array of objects keyed by each column's json_key (columns without one left out).
nlohmann::json TableRowsJson(const Table& table);

}  // namespace xpuperf::render

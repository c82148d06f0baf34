#include "xpuperf/render/table.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "xpuperf/core/units_text.h"
#include "xpuperf/render/html.h"
#include "xpuperf/render/text_table.h"

namespace xpuperf::render {

namespace {

using Align = TextTable::Align;

std::string Sec(int64_t ns) { return FormatSeconds(static_cast<double>(ns) / 1e9); }

}  // namespace

std::string FormatCell(const Cell& cell, int decimals) {
  switch (cell.kind) {
    case CellKind::kText:
      return cell.text;
    case CellKind::kCount:
      return std::to_string(cell.integer);
    case CellKind::kNs:
      return Sec(cell.integer);
    case CellKind::kBytes:
      return FormatBytes(static_cast<double>(cell.integer));
    case CellKind::kFraction:
      return fmt::format("{:.1f}%", 100.0 * cell.number);
    case CellKind::kNumber:
      return std::isnan(cell.number) ? "NaN" : fmt::format("{:.{}f}", cell.number, decimals);
    case CellKind::kNsShare:
      return Sec(cell.integer) + " " +
             (std::isnan(cell.number) ? std::string("-") : FormatPercent(100 * cell.number));
    case CellKind::kFlops:
      return FormatSi(cell.number, "FLOP");
    case CellKind::kFlopRate:
      return FormatSi(cell.number, "FLOP/s");
  }
  return {};
}

std::string RenderTableText(const Table& table) {
  if (table.rows.empty() && !table.show_empty) return {};
  std::vector<TextTable::Column> columns;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    Align align = Align::kRight;
    switch (table.columns[c].align) {
      case Column::Align::kLeft:
        align = Align::kLeft;
        break;
      case Column::Align::kRight:
        break;
      case Column::Align::kAuto:
        // Text columns left; without rows, the first column (a name) left.
        if (table.rows.empty()
                ? c == 0
                : c < table.rows[0].size() && table.rows[0][c].kind == CellKind::kText) {
          align = Align::kLeft;
        }
        break;
    }
    columns.push_back({table.columns[c].header, align});
  }
  TextTable t(table.caption, columns);
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    cells.reserve(row.size());
    for (size_t c = 0; c < row.size(); ++c) {
      cells.push_back(FormatCell(row[c], c < table.columns.size() ? table.columns[c].decimals : 2));
    }
    t.AddRow(cells);
  }
  return "\n" + t.Render(table.max_cell_width);
}

// A note as "  - " lines of at most 100 columns, broken between words.
std::string WrapNote(const std::string& note) {
  std::string text, line = "  -";
  size_t start = 0;
  while (start < note.size()) {
    size_t end = note.find(' ', start);
    if (end == std::string::npos) end = note.size();
    const std::string_view word(note.data() + start, end - start);
    if (line.size() > 4 && line.size() + 1 + word.size() > 100) {
      text += line + "\n";
      line = "   ";
    }
    line += " ";
    line += word;
    start = end + 1;
  }
  return text + line + "\n";
}

// One table of the output model (text cells cut at 120 characters, as the built-in tables), with
// its caption; empty without rows.
std::string RenderTableHtml(const Table& table, bool with_caption) {
  if (table.rows.empty()) return {};
  std::string html = with_caption ? "<p>" + HtmlEscape(table.caption) + "</p>" : "";
  html += "<table><tr>";
  for (const auto& column : table.columns) html += "<th>" + HtmlEscape(column.header) + "</th>";
  html += "</tr>";
  for (const auto& row : table.rows) {
    html += "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      const Cell& cell = row[c];
      std::string text = FormatCell(cell, c < table.columns.size() ? table.columns[c].decimals : 2);
      if (cell.kind == CellKind::kText) text = text.substr(0, 120);
      html += "<td>" + HtmlEscape(text) + "</td>";
    }
    html += "</tr>";
  }
  return html + "</table>";
}

nlohmann::json CellJson(const Cell& cell) {
  switch (cell.kind) {
    case CellKind::kText:
      return cell.text;
    case CellKind::kCount:
    case CellKind::kNs:
    case CellKind::kBytes:
    case CellKind::kNsShare:
      return cell.integer;
    case CellKind::kFraction:
    case CellKind::kNumber:
    case CellKind::kFlops:
    case CellKind::kFlopRate:
      return cell.number;
  }
  return nullptr;
}

nlohmann::json TableRowsJson(const Table& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : table.rows) {
    nlohmann::json entry = nlohmann::json::object();
    for (size_t c = 0; c < table.columns.size() && c < row.size(); ++c) {
      if (!table.columns[c].json_key.empty()) entry[table.columns[c].json_key] = CellJson(row[c]);
    }
    rows.push_back(std::move(entry));
  }
  return rows;
}

}  // namespace xpuperf::render

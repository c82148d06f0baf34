// A plain-text table with a title, left-aligned text columns and right-aligned numeric columns.
#pragma once

#include <string>
#include <vector>

namespace xpuperf::render {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  TextTable(std::string title, std::vector<Column> columns);
  void AddRow(std::vector<std::string> cells);  // missing cells render empty
  bool empty() const { return rows_.empty(); }
  // Title line, header, a rule, rows; widths fit the longest cell. A cell longer than
  // max_cell_width loses its middle ("ampere_sgemm_...x64_tn": the ends tell names apart). With
  // line_width > 0 (a terminal's columns) the widest left-aligned columns shrink the same way
  // until a row fits, down to 16 columns each; line_width 0 takes DefaultLineWidth().
  std::string Render(size_t max_cell_width = 80, size_t line_width = 0) const;

 private:
  std::string title_;
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; all our glyphs are single-width).
size_t DisplayWidth(const std::string& text);

// `text` in at most max_width columns: its head and tail around "..." when it is longer.
std::string ElideMiddle(const std::string& text, size_t max_width);

// The width of the terminal standard output is, when it is one: $COLUMNS, else the terminal's
// own; 0 when standard output is not a terminal (pipes, files and tests get whole tables).
size_t TerminalColumns();

// The line width tables fit by default: 0 (none) until the program sets it, once, from
// TerminalColumns() (cli/main.cpp), so that tests and library callers get whole tables.
void SetDefaultLineWidth(size_t columns);
size_t DefaultLineWidth();

}  // namespace xpuperf::render

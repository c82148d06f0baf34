// A plain-text table with a title, left-aligned text columns and right-aligned numeric columns.
#pragma once

#include <string>
#include <vector>

namespace xpuperf::cli {

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
  // Title line, header, a rule, rows; widths fit the longest cell. Cells longer than max_cell_width
  // are cut with "...".
  std::string Render(size_t max_cell_width = 80) const;

 private:
  std::string title_;
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; all our glyphs are single-width).
size_t DisplayWidth(const std::string& text);

}  // namespace xpuperf::cli

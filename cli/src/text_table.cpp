#include "xpuperf/cli/text_table.h"

#include <algorithm>

namespace xpuperf::cli {

size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++width;  // count lead bytes only
  }
  return width;
}

namespace {
std::string Truncate(const std::string& text, size_t max_width) {
  if (DisplayWidth(text) <= max_width || max_width < 4) return text;
  std::string out;
  size_t width = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (width == max_width - 3) break;
      ++width;
    }
    out += text[i];
  }
  return out + "...";
}

void Pad(std::string& out, const std::string& cell, size_t width, TextTable::Align align) {
  const size_t pad = width - std::min(width, DisplayWidth(cell));
  if (align == TextTable::Align::kRight) out.append(pad, ' ');
  out += cell;
  if (align == TextTable::Align::kLeft) out.append(pad, ' ');
}
}  // namespace

TextTable::TextTable(std::string title, std::vector<Column> columns)
    : title_(std::move(title)), columns_(std::move(columns)) {}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(size_t max_cell_width) const {
  std::vector<std::vector<std::string>> rows = rows_;
  for (auto& row : rows) {
    for (auto& cell : row) cell = Truncate(cell, max_cell_width);
  }
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = DisplayWidth(columns_[c].header);
    for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) out += "  ";
      // The last left-aligned column is not padded: no trailing spaces.
      if (c + 1 == columns_.size() && columns_[c].align == Align::kLeft) {
        out += cells[c];
      } else {
        Pad(out, cells[c], widths[c], columns_[c].align);
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = title_.empty() ? "" : title_ + "\n";
  std::vector<std::string> headers;
  size_t total = 0;
  for (size_t c = 0; c < columns_.size(); ++c) {
    headers.push_back(columns_[c].header);
    total += widths[c] + (c > 0 ? 2 : 0);
  }
  out += line(headers);
  std::string rule;
  for (size_t i = 0; i < total; ++i) rule += "-";
  out += rule + "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace xpuperf::cli

#include "xpuperf/render/text_table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace xpuperf::render {

size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++width;  // count lead bytes only
  }
  return width;
}

namespace {

std::atomic<size_t> default_line_width{0};

// The byte offset after the first `count` code points of `text`.
size_t PrefixBytes(const std::string& text, size_t count) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == count) return i;
      ++seen;
    }
  }
  return text.size();
}

}  // namespace

std::string ElideMiddle(const std::string& text, size_t max_width) {
  const size_t width = DisplayWidth(text);
  if (width <= max_width || max_width < 5) return text;
  const size_t keep = max_width - 3;
  const size_t head = (keep + 1) / 2, tail = keep / 2;
  return text.substr(0, PrefixBytes(text, head)) + "..." +
         text.substr(PrefixBytes(text, width - tail));
}

void SetDefaultLineWidth(size_t columns) { default_line_width = columns; }
size_t DefaultLineWidth() { return default_line_width; }

size_t TerminalColumns() {
  if (isatty(STDOUT_FILENO) == 0) return 0;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value >= 20 && value <= 10000) {
      return static_cast<size_t>(value);
    }
  }
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 0;
}

namespace {

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

std::string TextTable::Render(size_t max_cell_width, size_t line_width) const {
  std::vector<std::vector<std::string>> rows = rows_;
  for (auto& row : rows) {
    for (auto& cell : row) cell = ElideMiddle(cell, max_cell_width);
  }
  std::vector<size_t> widths(columns_.size());
  auto measure = [&] {
    size_t total = 0;
    for (size_t c = 0; c < columns_.size(); ++c) {
      widths[c] = DisplayWidth(columns_[c].header);
      for (const auto& row : rows) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
      total += widths[c] + (c > 0 ? 2 : 0);
    }
    return total;
  };
  if (line_width == 0) line_width = DefaultLineWidth();
  constexpr size_t kNarrowest = 16;
  for (size_t total = measure(); line_width > 0 && total > line_width;) {
    // The widest left-aligned (text) column gives up what the line is over, down to kNarrowest.
    size_t widest = columns_.size();
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].align == Align::kLeft && widths[c] > kNarrowest &&
          (widest == columns_.size() || widths[c] > widths[widest])) {
        widest = c;
      }
    }
    if (widest == columns_.size()) break;
    const size_t target =
        std::max({kNarrowest, widths[widest] - std::min(widths[widest], total - line_width),
                  DisplayWidth(columns_[widest].header)});
    if (target >= widths[widest]) break;
    for (auto& row : rows) row[widest] = ElideMiddle(row[widest], target);
    total = measure();
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

}  // namespace xpuperf::render

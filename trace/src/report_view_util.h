// What the report views (analysis_<name>.cpp of the analyses SummariseRank computes) share.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xpuperf/core/json.h"
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace::internal {

// A duration distribution as the JSON of the kernels and launch views writes it.
inline nlohmann::json StatsJson(const DurationStats& s) {
  return {{"count", s.count},   {"total_ns", s.total_ns}, {"min_ns", s.min_ns},
          {"max_ns", s.max_ns}, {"mean_ns", s.mean_ns},   {"std_ns", s.std_ns}};
}

inline Cell Rank(int rank) { return Cell::Text(std::to_string(rank)); }

// part / whole as a fraction, "-" without a whole.
inline Cell Share(int64_t part, int64_t whole) {
  return whole > 0 ? Cell::Fraction(static_cast<double>(part) / static_cast<double>(whole))
                   : Cell::Text("-");
}

// One table the terminal shows with up to 80 columns a cell (names in the top-k tables: 60).
inline std::vector<Table> Wide(Table table) {
  table.max_cell_width = 80;
  return {std::move(table)};
}

}  // namespace xpuperf::trace::internal

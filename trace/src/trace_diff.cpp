#include <algorithm>
#include <map>

#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

using OpTotals = std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>;

OpTotals Totals(const Trace& trace) {
  OpTotals totals;
  for (const TraceEvent& e : trace.events) {
    const char* kind = e.kind == EventKind::kCpuOp ? "cpu_op" : IsGpuOp(e.kind) ? "gpu" : nullptr;
    if (!kind) continue;
    auto& t = totals[{kind, std::string(trace.Name(e))}];
    ++t.first;
    t.second += e.dur_ns;
  }
  return totals;
}

}  // namespace

TraceDiff CompareTraces(const Trace& a, const Trace& b) {
  TraceDiff diff;
  OpTotals ta = Totals(a), tb = Totals(b);
  for (const auto& [key, va] : ta) {
    OpDiff d{key.second, key.first, va.first, 0, va.second, 0};
    auto found = tb.find(key);
    if (found == tb.end()) {
      diff.removed.push_back(d);
      continue;
    }
    d.count_b = found->second.first;
    d.total_ns_b = found->second.second;
    if (d.count_a != d.count_b || d.total_ns_a != d.total_ns_b) {
      diff.changed.push_back(d);
    } else {
      ++diff.unchanged;
    }
  }
  for (const auto& [key, vb] : tb) {
    if (!ta.count(key)) diff.added.push_back({key.second, key.first, 0, vb.first, 0, vb.second});
  }
  auto by_delta = [](const OpDiff& x, const OpDiff& y) {
    int64_t dx = std::llabs(x.total_ns_b - x.total_ns_a),
            dy = std::llabs(y.total_ns_b - y.total_ns_a);
    return dx != dy ? dx > dy : x.name < y.name;
  };
  std::sort(diff.changed.begin(), diff.changed.end(), by_delta);
  std::sort(diff.added.begin(), diff.added.end(), by_delta);
  std::sort(diff.removed.begin(), diff.removed.end(), by_delta);
  return diff;
}

nlohmann::json ToJson(const TraceDiff& diff) {
  auto list = [](const std::vector<OpDiff>& ops) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : ops) {
      out.push_back({{"name", d.name},
                     {"kind", d.kind},
                     {"count_a", d.count_a},
                     {"count_b", d.count_b},
                     {"total_ns_a", d.total_ns_a},
                     {"total_ns_b", d.total_ns_b},
                     {"delta_ns", d.total_ns_b - d.total_ns_a}});
    }
    return out;
  };
  return {{"added", list(diff.added)},
          {"removed", list(diff.removed)},
          {"changed", list(diff.changed)},
          {"unchanged", diff.unchanged}};
}

}  // namespace xpuperf::trace

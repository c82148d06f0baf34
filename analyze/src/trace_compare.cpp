// The trace diff behind `xpuperf compare A.json B.json`.
#include <fmt/format.h>

#include <ostream>

#include "xpuperf/analyze/analyze.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/text_table.h"
#include "xpuperf/trace/reader.h"

namespace xpuperf::analyze {
namespace {

std::string Sec(int64_t ns) { return FormatSeconds(static_cast<double>(ns) / 1e9); }

void Table(std::ostream& out, const std::string& title, const std::vector<trace::OpDiff>& ops,
           int top) {
  if (ops.empty()) return;
  using Align = render::TextTable::Align;
  render::TextTable t(fmt::format("{} ({})", title, ops.size()), {{"op"},
                                                                  {"kind"},
                                                                  {"count A", Align::kRight},
                                                                  {"count B", Align::kRight},
                                                                  {"time A", Align::kRight},
                                                                  {"time B", Align::kRight},
                                                                  {"delta", Align::kRight}});
  int shown = 0;
  for (const auto& d : ops) {
    if (shown++ >= top) break;
    int64_t delta = d.total_ns_b - d.total_ns_a;
    t.AddRow({d.name, d.kind, std::to_string(d.count_a), std::to_string(d.count_b),
              Sec(d.total_ns_a), Sec(d.total_ns_b),
              (delta >= 0 ? "+" : "-") + Sec(delta >= 0 ? delta : -delta)});
  }
  out << "\n" << t.Render(60);
}

}  // namespace

int RunTraceCompare(const TraceCompareOptions& options, std::ostream& out, std::ostream& err) {
  if (options.baseline.empty() || options.candidate.empty()) {
    err << "xpuperf compare: error: two trace files are required\n";
    return kExitUsage;
  }
  auto a = trace::ReadTraceFile(options.baseline);
  if (!a.ok()) {
    err << "xpuperf compare: error: " << a.error().message << "\n";
    return a.error().code == ErrorCode::kNotFound ? kExitUsage : kExitFailure;
  }
  auto b = trace::ReadTraceFile(options.candidate);
  if (!b.ok()) {
    err << "xpuperf compare: error: " << b.error().message << "\n";
    return b.error().code == ErrorCode::kNotFound ? kExitUsage : kExitFailure;
  }
  trace::TraceDiff diff = trace::CompareTraces(*a, *b);
  if (options.json) {
    nlohmann::json j = trace::ToJson(diff);
    j["json_schema_version"] = 1;
    j["baseline"] = options.baseline;
    j["candidate"] = options.candidate;
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << fmt::format("Trace diff: A = {}\n            B = {}\n", options.baseline,
                     options.candidate);
  out << fmt::format(
      "{} ops added, {} removed, {} changed, {} unchanged (by name; CPU ops and GPU ops)\n",
      diff.added.size(), diff.removed.size(), diff.changed.size(), diff.unchanged);
  Table(out, "Changed (by |time B - time A|)", diff.changed, options.top);
  Table(out, "Added in B", diff.added, options.top);
  Table(out, "Removed from A", diff.removed, options.top);
  return kExitOk;
}

}  // namespace xpuperf::analyze

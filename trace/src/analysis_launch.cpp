// The launch analysis, a report view (analysis_registry.h): kernel launches: matched calls, launch
// delay, short kernels. SummariseRank computes it for the findings; here are its JSON (fixed
// schema, report.h) and its table for the text and the HTML. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table LaunchTable(const RunReport& report) {
  Table t{"Kernel launches (call <-> GPU op by correlation)",
          "launches",
          {{"rank", "rank"},
           {"matched", "matched", Column::Align::kRight},
           {"delay p50", "delay_p50_ns"},
           {"delay p90", "delay_p90_ns"},
           {"delay max", "delay_max_ns"},
           {"short kernels", "short_kernels"},
           {"calls > 50us", "long_launch_calls"},
           {"delay > 100us", "delayed_launches"}},
          {}};
  for (const RankReport& r : report.ranks) {
    const auto& l = r.evidence.launches;
    if (l.gpu_ops == 0) continue;
    t.rows.push_back({Rank(r.evidence.rank), Cell::Text(fmt::format("{}/{}", l.matched, l.gpu_ops)),
                      Cell::Ns(l.delay_p50_ns), Cell::Ns(l.delay_p90_ns), Cell::Ns(l.delay.max_ns),
                      Cell::Count(l.short_kernels), Cell::Count(l.long_launch_calls),
                      Cell::Count(l.delayed_launches)});
  }
  return t;
}

std::vector<Table> LaunchView(const RunReport& report, size_t) { return Wide(LaunchTable(report)); }

nlohmann::json LaunchJson(const LaunchStats& l) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : l.calls) {
    nlohmann::json entry = internal::StatsJson(c.cpu_duration);
    entry["name"] = c.name;
    calls.push_back(entry);
  }
  return {{"gpu_ops", l.gpu_ops},
          {"matched", l.matched},
          {"delay", internal::StatsJson(l.delay)},
          {"delay_p50_ns", l.delay_p50_ns},
          {"delay_p90_ns", l.delay_p90_ns},
          {"short_kernels", l.short_kernels},
          {"long_launch_calls", l.long_launch_calls},
          {"delayed_launches", l.delayed_launches},
          {"host_launch_calls", l.host_launch_calls},
          {"runtime_cutoff_ns", l.runtime_cutoff_ns},
          {"delay_cutoff_ns", l.delay_cutoff_ns},
          {"calls", calls}};
}

nlohmann::json LaunchJsonOfRank(const RankReport& rank) {
  return LaunchJson(rank.evidence.launches);
}

}  // namespace

extern const AnalysisDescriptor kLaunchAnalysis = {.name = "launch",
                                                   .title = "Kernel launches",
                                                   .json_key = "launch_stats",
                                                   .view = LaunchView,
                                                   .rank_json = LaunchJsonOfRank};

}  // namespace xpuperf::trace

// The queue analysis, a report view (analysis_registry.h): the launch queue length per stream.
// SummariseRank computes it for the findings; here are its JSON (fixed schema, report.h) and its
// table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"
#include "xpuperf/core/json.h"

namespace xpuperf::trace {
namespace {

using internal::Rank;
using internal::Wide;

Table QueueTable(const RunReport& report) {
  Table t{"Launch queue length by stream",
          "queue",
          {{"rank", "rank"},
           {"device", "device"},
           {"stream", "stream"},
           {"max", "max_length"},
           {"mean", "mean_length"},
           {"time >= 1024", "time_at_or_above_limit_ns"}},
          {}};
  for (const RankReport& r : report.ranks) {
    for (const auto& s : r.queue.streams) {
      t.rows.push_back({Rank(r.evidence.rank), Cell::Text(std::to_string(s.device)),
                        Cell::Text(std::to_string(s.stream)), Cell::Count(s.max_length),
                        Cell::Number(s.mean_length), Cell::Ns(s.time_at_or_above_limit_ns)});
    }
  }
  return t;
}

std::vector<Table> QueueView(const RunReport& report, size_t) { return Wide(QueueTable(report)); }

nlohmann::json QueueJson(const QueueLength& q) {
  nlohmann::json streams = nlohmann::json::array();
  for (const auto& s : q.streams) {
    streams.push_back({{"device", s.device},
                       {"stream", s.stream},
                       {"max_length", s.max_length},
                       {"mean_length", s.mean_length},
                       {"time_at_or_above_limit_ns", s.time_at_or_above_limit_ns},
                       {"span_ns", s.span_ns}});
  }
  return {{"limit", q.limit}, {"streams", streams}};
}

nlohmann::json QueueJsonOfRank(const RankReport& rank) { return QueueJson(rank.queue); }

}  // namespace

extern const AnalysisDescriptor kQueueAnalysis = {.name = "queue",
                                                  .title = "Launch queue length",
                                                  .json_key = "queue_length",
                                                  .view = QueueView,
                                                  .rank_json = QueueJsonOfRank};

}  // namespace xpuperf::trace

// The queue analysis, a report view (analysis_registry.h): the launch queue length per stream.
// SummariseRank computes it for the findings and the report writes its JSON (report_json.cpp);
// this is its table for the text and the HTML. Registered in registered_analyses.inc.
#include <string>
#include <vector>

#include "report_view_util.h"

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

}  // namespace

extern const AnalysisDescriptor kQueueAnalysis = {
    .name = "queue", .title = "Launch queue length", .json_key = "", .view = QueueView};

}  // namespace xpuperf::trace

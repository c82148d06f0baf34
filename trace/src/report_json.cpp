// AnalyzeRun and the JSON form of its report: the report views' objects come from their
// descriptors (analysis_<name>.cpp), the computed analyses' from their AnalysisOutput.
#include <atomic>
#include <thread>

#include "xpuperf/core/json.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

using nlohmann::json;

}  // namespace

nlohmann::json FindingsToJson(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const auto& f : findings) {
    out.push_back({{"rule", f.rule},
                   {"severity", SeverityName(f.severity)},
                   {"rank", f.rank},
                   {"title", f.title},
                   {"value", f.value},
                   {"threshold", f.threshold},
                   {"evidence", f.evidence},
                   {"advice", f.advice}});
  }
  return out;
}

json ToJson(const AnalysisOutput& output) {
  json out = json::object();
  for (const Field& f : output.fields) out[f.json_key] = render::CellJson(f.value);
  for (const Table& t : output.tables) out[t.json_key] = render::TableRowsJson(t);
  if (!output.notes.empty()) out["notes"] = output.notes;
  return out;
}

const std::vector<std::string>& AnalysisNames() {
  static const std::vector<std::string> kNames = [] {
    // The findings (the rule table over the evidence), then every registered analysis.
    std::vector<std::string> names = {"findings"};
    for (const AnalysisDescriptor* d : RegisteredAnalyses()) names.emplace_back(d->name);
    return names;
  }();
  return kNames;
}

RunReport AnalyzeRun(const TraceRun& run, size_t top_k, std::string_view critical_path_range,
                     const std::set<std::string>& analyses, const PeakFlops* peaks) {
  auto need = [&](std::string_view name) {
    return analyses.empty() || analyses.count(std::string(name)) > 0;
  };
  RunReport report;
  report.ranks.resize(run.ranks.size());
  auto analyse = [&](size_t i) {
    const Trace& trace = run.ranks[i];
    RankReport& r = report.ranks[i];
    r.source = trace.source;
    r.format = std::string(TraceFormatName(trace.format));
    r.events = static_cast<int64_t>(trace.events.size());
    r.skipped_events = trace.skipped_events;
    r.input_bytes = trace.input_bytes;
    r.evidence = SummariseRank(trace, top_k, critical_path_range, analyses);
    if (need("queue")) r.queue = ComputeQueueLength(trace);
    if (need("gemm")) r.gemm = ComputeGemmPoints(trace);
    if (need("findings")) r.findings = EvaluateRules(r.evidence);
    const AnalysisContext context{top_k, critical_path_range, &r.evidence, peaks};
    for (const AnalysisDescriptor* d : RegisteredAnalyses()) {
      // An analysis not asked for keeps an empty output (outputs[i] stays
      // RegisteredAnalyses()[i]'s).
      r.outputs.push_back(need(d->name) && d->compute != nullptr ? d->compute(trace, context)
                                                                 : AnalysisOutput{});
    }
  };
  // Ranks are independent: analyse them on up to hardware_concurrency threads.
  size_t workers =
      std::min<size_t>(run.ranks.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < run.ranks.size(); i = next++) analyse(i);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (need("stragglers")) report.stragglers = ComputeStragglers(run);
  return report;
}

nlohmann::json ToJson(const RunReport& report, const std::set<std::string>& analyses) {
  auto want = [&](const char* name) { return analyses.empty() || analyses.count(name) > 0; };
  json ranks = json::array();
  for (const auto& r : report.ranks) {
    const RankEvidence& ev = r.evidence;
    json rank = {{"rank", ev.rank},
                 {"source", r.source},
                 {"format", r.format},
                 {"events", r.events},
                 {"skipped_events", r.skipped_events},
                 {"input_bytes", r.input_bytes}};
    for (const AnalysisDescriptor* analysis : RegisteredAnalyses()) {
      if (analysis->rank_json != nullptr && want(std::string(analysis->name).c_str())) {
        rank[std::string(analysis->json_key)] = analysis->rank_json(r);
      }
    }
    if (want("findings")) rank["findings"] = FindingsToJson(r.findings);
    const auto& registered = RegisteredAnalyses();
    for (size_t a = 0; a < registered.size() && a < r.outputs.size(); ++a) {
      const AnalysisOutput& output = r.outputs[a];
      // An analysis with nothing to say for this run (the hta tables under the xpuperf
      // convention) is left out.
      if (output.fields.empty() && output.tables.empty()) continue;
      if (want(std::string(registered[a]->name).c_str())) {
        rank[std::string(registered[a]->json_key)] = ToJson(r.outputs[a]);
      }
    }
    ranks.push_back(rank);
  }
  json out = {{"json_schema_version", kJsonSchemaVersion}, {"ranks", ranks}};
  for (const AnalysisDescriptor* analysis : RegisteredAnalyses()) {
    if (analysis->run_json != nullptr && want(std::string(analysis->name).c_str())) {
      out[std::string(analysis->json_key)] = analysis->run_json(report);
    }
  }
  if (want("findings")) {
    json rules = json::array();
    for (const auto& rule : Rules())
      rules.push_back({{"rule", rule.id}, {"condition", rule.condition}});
    out["rules"] = rules;
  }
  return out;
}

}  // namespace xpuperf::trace

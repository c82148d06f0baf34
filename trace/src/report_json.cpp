// AnalyzeRun and the JSON form of its report.
#include <atomic>
#include <thread>

#include "xpuperf/core/json.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

using nlohmann::json;

json Stats(const DurationStats& s) {
  return {{"count", s.count},   {"total_ns", s.total_ns}, {"min_ns", s.min_ns},
          {"max_ns", s.max_ns}, {"mean_ns", s.mean_ns},   {"std_ns", s.std_ns}};
}

json Temporal(const TemporalBreakdown& t) {
  auto pct = [&](int64_t v) {
    return t.window_ns > 0 ? 100.0 * static_cast<double>(v) / static_cast<double>(t.window_ns)
                           : 0.0;
  };
  return {{"window_ns", t.window_ns},
          {"busy_ns", t.busy_ns},
          {"compute_ns", t.compute_ns},
          {"non_compute_ns", t.non_compute_ns},
          {"idle_ns", t.idle_ns},
          {"gpu_ops", t.gpu_ops},
          {"compute_percent", pct(t.compute_ns)},
          {"non_compute_percent", pct(t.non_compute_ns)},
          {"idle_percent", pct(t.idle_ns)}};
}

json Idle(const IdleBreakdown& idle) {
  json streams = json::array();
  for (const auto& s : idle.streams) {
    streams.push_back({{"device", s.device},
                       {"stream", s.stream},
                       {"window_ns", s.window_ns},
                       {"busy_ns", s.busy_ns},
                       {"idle_ns", s.idle_ns},
                       {"host_wait_ns", s.host_wait_ns},
                       {"kernel_wait_ns", s.kernel_wait_ns},
                       {"other_ns", s.other_ns},
                       {"gaps", s.gaps}});
  }
  return {{"kernel_wait_threshold_ns", idle.kernel_wait_threshold_ns}, {"streams", streams}};
}

json Kernels(const KernelBreakdown& k) {
  json classes = json::object();
  for (int c = 0; c < 3; ++c) {
    classes[std::string(KernelClassName(static_cast<KernelClass>(c)))] = {
        {"count", k.class_count[c]}, {"total_ns", k.class_total_ns[c]}};
  }
  json top = json::array();
  for (const auto& s : k.top) {
    json entry = Stats(s.duration);
    entry["name"] = s.name;
    entry["class"] = KernelClassName(s.kernel_class);
    top.push_back(entry);
  }
  return {{"classes", classes},
          {"total_ns", k.total_ns},
          {"distinct_kernels", k.distinct_kernels},
          {"top", top}};
}

json Launch(const LaunchStats& l) {
  json calls = json::array();
  for (const auto& c : l.calls) {
    json entry = Stats(c.cpu_duration);
    entry["name"] = c.name;
    calls.push_back(entry);
  }
  return {{"gpu_ops", l.gpu_ops},
          {"matched", l.matched},
          {"delay", Stats(l.delay)},
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

json Queue(const QueueLength& q) {
  json streams = json::array();
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

json Memcpy(const MemcpyBandwidth& m) {
  json kinds = json::array();
  for (const auto& k : m.kinds) {
    kinds.push_back({{"kind", k.kind},
                     {"count", k.count},
                     {"bytes", k.bytes},
                     {"busy_ns", k.busy_ns},
                     {"gbps", k.gbps},
                     {"peak_concurrent_gbps", k.peak_concurrent_gbps},
                     {"pageable", k.pageable}});
  }
  return kinds;
}

json CriticalPathJson(const CriticalPath& p) {
  auto share = [&](int64_t ns) {
    return p.length_ns > 0 ? static_cast<double>(ns) / static_cast<double>(p.length_ns) : 0.0;
  };
  json categories = json::object();
  for (int c = 0; c < kPathCategories; ++c) {
    categories[std::string(PathCategoryName(static_cast<PathCategory>(c)))] = {
        {"ns", p.category_ns[c]}, {"share", share(p.category_ns[c])}};
  }
  json top = json::array();
  for (const auto& item : p.top) {
    top.push_back({{"name", item.name},
                   {"category", PathCategoryName(item.category)},
                   {"ns", item.ns},
                   {"share", share(item.ns)}});
  }
  return {{"window", p.window},
          {"start_ns", p.start_ns},
          {"end_ns", p.end_ns},
          {"length_ns", p.length_ns},
          {"segments", p.steps},
          {"gpu_ops", p.gpu_ops},
          {"host_ns", p.host_ns},
          {"host_share", share(p.host_ns)},
          {"verdict", p.verdict},
          {"categories", categories},
          {"top", top}};
}

json Operators(const OperatorBreakdown& o) {
  auto list = [](const std::vector<OperatorStat>& ops) {
    json out = json::array();
    for (const auto& s : ops) {
      out.push_back({{"name", s.name},
                     {"count", s.count},
                     {"inclusive_ns", s.inclusive_ns},
                     {"exclusive_ns", s.exclusive_ns}});
    }
    return out;
  };
  return {
      {"total_ops", o.total_ops}, {"by_name", list(o.by_name)}, {"by_module", list(o.by_module)}};
}

json Iterations(const IterationBreakdown& it) {
  json steps = json::array();
  for (const auto& s : it.steps) {
    steps.push_back({{"step", s.step},
                     {"start_ns", s.start_ns},
                     {"duration_ns", s.duration_ns},
                     {"gpu_busy_ns", s.gpu_busy_ns},
                     {"compute_ns", s.compute_ns},
                     {"comm_ns", s.comm_ns},
                     {"memory_ns", s.memory_ns},
                     {"kernels", s.kernels},
                     {"dataloader_ns", s.dataloader_ns}});
  }
  return steps;
}

json Memory(const MemoryEventsSummary& m) {
  json devices = json::array();
  for (const auto& d : m.devices) {
    devices.push_back({{"device_type", d.device_type},
                       {"device_id", d.device_id},
                       {"peak_allocated_bytes", d.peak_allocated},
                       {"peak_reserved_bytes", d.peak_reserved},
                       {"peak_ts_ns", d.peak_ts_ns},
                       {"allocations", d.allocations},
                       {"frees", d.frees},
                       {"total_memory_bytes", d.total_memory}});
  }
  json sites = json::array();
  for (const auto& s : m.top_sites) {
    sites.push_back({{"op", s.op}, {"allocations", s.allocations}, {"bytes", s.bytes}});
  }
  return {{"events", m.events}, {"devices", devices}, {"top_sites", sites}};
}

json Gemm(const std::vector<GemmPoint>& points) {
  json out = json::array();
  for (const auto& p : points) {
    out.push_back({{"op", p.op},
                   {"kernel", p.kernel},
                   {"m", p.m},
                   {"n", p.n},
                   {"k", p.k},
                   {"batch", p.batch},
                   {"dtype", p.dtype},
                   {"flops", p.flops},
                   {"bytes", p.bytes},
                   {"calls", p.calls},
                   {"time_ns", p.time_ns},
                   {"flops_per_second", p.FlopsPerSecond()}});
  }
  return out;
}

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

json CellToJson(const Cell& cell) {
  switch (cell.kind) {
    case CellKind::kText:
      return cell.text;
    case CellKind::kCount:
    case CellKind::kNs:
    case CellKind::kBytes:
    case CellKind::kNsShare:
      return cell.integer;
    case CellKind::kFraction:
    case CellKind::kNumber:
    case CellKind::kFlops:
    case CellKind::kFlopRate:
      return cell.number;
  }
  return nullptr;
}

json ToJson(const AnalysisOutput& output) {
  json out = json::object();
  for (const Field& f : output.fields) out[f.json_key] = CellToJson(f.value);
  for (const Table& t : output.tables) {
    json rows = json::array();
    for (const auto& row : t.rows) {
      json entry = json::object();
      for (size_t c = 0; c < t.columns.size() && c < row.size(); ++c) {
        if (!t.columns[c].json_key.empty()) entry[t.columns[c].json_key] = CellToJson(row[c]);
      }
      rows.push_back(std::move(entry));
    }
    out[t.json_key] = std::move(rows);
  }
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
    if (want("temporal")) rank["temporal_breakdown"] = Temporal(ev.temporal);
    if (want("idle")) rank["idle_breakdown"] = Idle(ev.idle);
    if (want("kernels")) rank["kernel_breakdown"] = Kernels(ev.kernels);
    if (want("overlap")) {
      rank["comm_compute_overlap"] = {{"comm_ns", ev.overlap.comm_ns},
                                      {"compute_ns", ev.overlap.compute_ns},
                                      {"overlap_ns", ev.overlap.overlap_ns},
                                      {"overlap_ratio", ev.overlap.overlap_ratio}};
    }
    if (want("launch")) rank["launch_stats"] = Launch(ev.launches);
    if (want("queue")) rank["queue_length"] = Queue(r.queue);
    if (want("memcpy")) rank["memcpy_bandwidth"] = Memcpy(ev.memcpy);
    if (want("operators")) rank["operators"] = Operators(ev.operators);
    if (want("critical_path")) rank["critical_path"] = CriticalPathJson(ev.critical_path);
    if (want("iterations")) rank["iterations"] = Iterations(ev.iterations);
    if (want("memory")) rank["memory"] = Memory(ev.memory);
    if (want("gemm")) rank["gemm_points"] = Gemm(r.gemm);
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
  if (want("stragglers")) {
    json s = json::array();
    for (const auto& r : report.stragglers.ranks) {
      s.push_back({{"rank", r.rank},
                   {"collectives", r.collectives},
                   {"last_count", r.last_count},
                   {"mean_lateness_ns", r.mean_lateness_ns},
                   {"comm_ns", r.comm_ns}});
    }
    out["stragglers"] = {{"collectives", report.stragglers.collectives}, {"ranks", s}};
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

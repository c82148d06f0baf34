#include "report.h"

#include <cmath>

namespace xpuperf::roofline {
namespace {

nlohmann::json Optional(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json RunJson(const Report& report) {
  return {{"directory", report.results.directory},
          {"run_id", report.results.run_id},
          {"host", report.results.host},
          {"backend", report.results.backend},
          {"device_model", report.results.device_model}};
}

nlohmann::json CeilingJson(const Ceiling& c) {
  return {{"kind", CeilingKindName(c.kind)},
          {"source", c.source == CeilingSource::kMeasured ? "measured" : "spec"},
          {"label", c.Label()},
          {"scope", c.scope},
          {"variant", c.variant},
          {"value", c.value},
          {"unit", c.kind != CeilingKind::kCompute ? "bytes/s"
                   : c.scope == "int8"             ? "OP/s"
                                                   : "FLOP/s"},
          {"recorded_value", c.recorded_value},
          {"recorded_unit", c.recorded_unit},
          {"benchmark", c.benchmark},
          {"metric", c.metric},
          {"basis", c.basis}};
}

nlohmann::json PointJson(const PointVerdict& v) {
  nlohmann::json terms = nlohmann::json::array();
  for (const BoundTerm& t : v.terms) {
    terms.push_back({{"bound", BoundName(t.bound)},
                     {"ceiling", t.ceiling},
                     {"scope", t.scope},
                     {"amount", t.amount},
                     {"amount_unit", t.bound == Bound::kCompute ? "FLOP" : "bytes"},
                     {"ceiling_value", t.ceiling_value},
                     {"seconds", t.seconds}});
  }
  const WorkloadPoint& p = v.point;
  return {{"name", p.name},
          {"op", p.op},
          {"dtype", p.dtype},
          {"flops", p.flops},
          {"bytes", p.bytes},
          {"bytes_by_level", p.bytes_by_level},
          {"host_bytes", p.host_bytes},
          {"collective_bytes", p.collective_bytes},
          {"time_seconds", Optional(p.time_seconds)},
          {"formula", p.formula},
          {"terms", terms},
          {"bound", BoundName(v.bound)},
          {"bound_scope", v.bound_scope},
          {"tied_with", v.tied},
          {"roof_seconds", v.roof_seconds},
          {"intensity_flop_per_byte", Optional(v.intensity)},
          {"peak_flops_per_second", Optional(v.peak_flops)},
          {"attainable_flops_per_second", Optional(v.attainable_flops)},
          {"achieved_flops_per_second", Optional(v.achieved_flops)},
          {"fraction_of_roof", Optional(v.fraction_of_roof)},
          {"headroom_seconds", Optional(v.headroom_seconds)},
          {"above_roof", v.above_roof},
          {"unstable", v.unstable ? nlohmann::json(*v.unstable) : nlohmann::json()},
          {"notes", v.notes}};
}

nlohmann::json SummaryJson(const Analysis& a) {
  nlohmann::json by_bound = nlohmann::json::array();
  for (const BoundSummary& s : a.by_bound) {
    by_bound.push_back(
        {{"bound", BoundName(s.bound)},
         {"points", s.points},
         {"measured_seconds", s.measured_seconds},
         {"share_of_time", a.measured_seconds > 0
                               ? nlohmann::json(s.measured_seconds / a.measured_seconds)
                               : nlohmann::json()},
         {"roof_seconds", s.roof_seconds},
         {"headroom_seconds", s.headroom_seconds}});
  }
  return {{"measured_seconds", a.measured_seconds},
          {"headroom_seconds", a.headroom_seconds},
          {"untimed_points", a.untimed_points},
          {"by_bound", by_bound}};
}

nlohmann::json AdviceJson(const std::vector<Advice>& advice) {
  nlohmann::json out = nlohmann::json::array();
  for (const Advice& a : advice) {
    out.push_back({{"rule", a.rule},
                   {"point", a.point},
                   {"advice", a.advice},
                   {"reason", a.reason},
                   {"expected_gain", a.expected_gain},
                   {"gain_seconds", Optional(a.gain_seconds)}});
  }
  return out;
}

void AddVerdicts(const Report& report, nlohmann::json& json) {
  json["points"] = nlohmann::json::array();
  if (report.analysis) {
    for (const PointVerdict& v : report.analysis->verdicts) json["points"].push_back(PointJson(v));
    json["summary"] = SummaryJson(*report.analysis);
  } else {
    json["summary"] = nullptr;
  }
  json["advice"] = AdviceJson(report.advice);
}

}  // namespace

Result<Report> BuildReport(BenchResults results, std::optional<spec::SpecSheet> spec,
                           std::optional<Workload> workload) {
  Report report;
  report.ceilings = CeilingsFromResults(results);
  if (spec) {
    for (Ceiling& c : CeilingsFromSpec(*spec)) report.ceilings.all.push_back(std::move(c));
  }
  report.results = std::move(results);
  report.spec = std::move(spec);
  if (workload) {
    XPUPERF_ASSIGN_OR_RETURN(Analysis analysis, Analyze(report.ceilings, *workload));
    report.analysis = std::move(analysis);
    report.workload = std::move(workload);
    AdviceContext context{&*report.analysis, &*report.workload, &report.ceilings,
                          report.results.device_memory_bytes};
    report.advice = Advise(context);
  }
  return report;
}

std::string NoPointsReason(const Report& report) {
  if (!report.no_points_reason.empty()) return report.no_points_reason;
  return "no workload given: pass --workload FILE, --flops/--bytes/--time or --trace PATH to "
         "place points under the roofs";
}

nlohmann::json ReportJson(const Report& report) {
  nlohmann::json json;
  json["json_schema_version"] = 1;
  json["run"] = RunJson(report);
  json["ceilings"] = nlohmann::json::array();
  for (const Ceiling& c : report.ceilings.all) json["ceilings"].push_back(CeilingJson(c));
  json["ridge_points"] = nlohmann::json::array();
  for (const RidgePoint& r : RidgePoints(report.ceilings)) {
    json["ridge_points"].push_back({{"compute", r.compute},
                                    {"memory", r.memory},
                                    {"intensity_flop_per_byte", r.intensity},
                                    {"flops_per_second", r.flops_per_second}});
  }
  AddVerdicts(report, json);
  json["spec"] = report.spec ? nlohmann::json({{"device", report.spec->device},
                                               {"file", report.spec->file},
                                               {"source", report.spec->source}})
                             : nlohmann::json({{"note", report.spec_note}});
  return json;
}

nlohmann::json DiagnoseJson(const Report& report) {
  nlohmann::json json;
  json["json_schema_version"] = 1;
  json["run"] = RunJson(report);
  AddVerdicts(report, json);
  return json;
}

std::optional<PlotPosition> PlotPositionOf(const PointVerdict& v) {
  const double flops = v.point.flops;
  if (!(flops > 0)) return std::nullopt;
  double intensity = 0;
  if (v.bound == Bound::kCompute) {
    if (v.intensity) intensity = *v.intensity;
  } else {
    for (const BoundTerm& t : v.terms) {
      if (t.bound == v.bound && t.scope == v.bound_scope && t.amount > 0) {
        intensity = flops / t.amount;
      }
    }
  }
  if (!(intensity > 0) || !std::isfinite(intensity)) return std::nullopt;
  PlotPosition position;
  position.intensity = intensity;
  position.measured = v.point.time_seconds.has_value();
  position.flops_per_second =
      position.measured ? flops / *v.point.time_seconds : flops / v.roof_seconds;
  return position;
}

std::vector<RidgePoint> RidgePoints(const Ceilings& ceilings) {
  std::vector<RidgePoint> ridges;
  const Ceiling* top = nullptr;
  for (const Ceiling& c : ceilings.all) {
    if (c.kind == CeilingKind::kCompute && c.source == CeilingSource::kMeasured &&
        (top == nullptr || c.value > top->value)) {
      top = &c;
    }
  }
  if (top == nullptr) return ridges;
  const Ceiling* main = ceilings.MainMemory();
  for (const Ceiling* level : ceilings.MeasuredMemoryLevels()) {
    ridges.push_back({top->Label(), level->Label(), top->value / level->value, top->value});
  }
  if (main != nullptr && main->source == CeilingSource::kMeasured) {
    for (const Ceiling& c : ceilings.all) {
      if (c.kind == CeilingKind::kCompute && c.source == CeilingSource::kMeasured && &c != top &&
          c.variant == "peak") {
        ridges.push_back({c.Label(), main->Label(), c.value / main->value, c.value});
      }
    }
  }
  return ridges;
}

}  // namespace xpuperf::roofline

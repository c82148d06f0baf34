// The single-file HTML report: inline CSS and SVG, no scripts or resources from elsewhere.
#include "xpuperf/render/html.h"

#include <fmt/format.h>

#include <map>

#include "report.h"
#include "xpuperf/core/version.h"

namespace xpuperf::roofline {
namespace {

// The roofline report's own classes; the page shell and its stylesheet are render's.
constexpr const char* kStyle = R"css(
td.formula { font-family: "DejaVu Sans Mono", monospace; font-size: 11.5px; color: #333; }
.bound-compute { color: #1f77b4; font-weight: bold; }
.bound-memory { color: #e6550d; font-weight: bold; }
.bound-host_link { color: #2ca02c; font-weight: bold; }
.bound-network { color: #9467bd; font-weight: bold; }
.advice { border-left: 4px solid #1f4e79; background: #f6f8fa; padding: 6px 10px; margin: 8px 0; }
.advice .rule { font-family: "DejaVu Sans Mono", monospace; color: #1f4e79; }
)css";

std::string E(std::string_view text) { return render::HtmlEscape(text); }

std::string Cell(const std::string& text, const char* cls = "") {
  return *cls ? fmt::format("<td class=\"{}\">{}</td>", cls, E(text)) : "<td>" + E(text) + "</td>";
}

std::string Header(std::initializer_list<const char*> names) {
  std::string out = "<tr>";
  for (const char* name : names) out += fmt::format("<th>{}</th>", name);
  return out + "</tr>\n";
}

std::string Opt(const std::optional<double>& value, std::string (*format)(double)) {
  return value ? format(*value) : "-";
}
std::string Percent(double value) { return fmt::format("{:.1f}%", 100 * value); }
std::string Intensity(double value) { return fmt::format("{:.3g}", value); }

std::string ParametersText(const nlohmann::json& parameters) {
  std::string out;
  for (const auto& [key, value] : parameters.items()) {
    out += (out.empty() ? "" : " ") + key + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

std::string CeilingsHtml(const Report& report) {
  std::string out =
      "<h2>Ceilings</h2>\n<table>\n" +
      Header({"kind", "ceiling", "value", "recorded value (results.jsonl)", "source", "basis"});
  for (const Ceiling& c : report.ceilings.all) {
    out += "<tr>" + Cell(std::string(CeilingKindName(c.kind))) + Cell(c.Label()) +
           Cell(FormatCeilingValue(c), "num") +
           Cell(c.source == CeilingSource::kSpec
                    ? fmt::format("{:.6g} {}", c.recorded_value, c.recorded_unit)
                    : fmt::format("{} {}", c.recorded_value, c.recorded_unit),
                "num") +
           Cell(c.source == CeilingSource::kSpec ? "spec sheet" : c.benchmark + " / " + c.metric) +
           Cell(c.basis) + "</tr>\n";
  }
  out += "</table>\n";
  const std::vector<RidgePoint> ridges = RidgePoints(report.ceilings);
  if (!ridges.empty()) {
    out += "<table>\n" + Header({"ridge point", "compute", "memory", "FLOP/byte"});
    for (const RidgePoint& r : ridges) {
      out += "<tr>" + Cell(r.compute + " / " + r.memory) +
             Cell(FormatFlops(r.flops_per_second), "num") + Cell(r.memory) +
             Cell(fmt::format("{:.3g}", r.intensity), "num") + "</tr>\n";
    }
    out += "</table>\n";
  }
  return out;
}

std::string VerdictsHtml(const Report& report) {
  if (!report.analysis || report.analysis->verdicts.empty()) {
    return "<h2>Verdicts</h2>\n<p class=\"note\">No points: " + E(NoPointsReason(report)) +
           ".</p>\n";
  }
  const Analysis& a = *report.analysis;
  std::string out =
      "<h2>Verdicts</h2>\n<p class=\"note\">Lower bound t &ge; max(F/P, B/BW<sub>mem</sub>, "
      "H/BW<sub>host</sub>, C/BW<sub>net</sub>); the largest term names the bound.</p>\n"
      "<table>\n" +
      Header({"#", "point", "dtype", "FLOPs", "bytes", "FLOP/B", "time", "achieved", "attainable",
              "bound", "of roof", "headroom", "counted"});
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    const PointVerdict& v = a.verdicts[i];
    std::string bound = std::string(BoundName(v.bound));
    if (v.bound != Bound::kCompute && !v.bound_scope.empty()) bound += " " + v.bound_scope;
    for (const std::string& tied : v.tied) bound += " = " + tied;
    if (v.unstable) bound = fmt::format("unstable ({}?): {}", bound, *v.unstable);
    out += "<tr>" + Cell(std::to_string(i + 1), "num") + Cell(v.point.name) + Cell(v.point.dtype) +
           Cell(fmt::format("{:.4g}", v.point.flops), "num") +
           Cell(fmt::format("{:.4g}", v.point.bytes), "num") +
           Cell(Opt(v.intensity, Intensity), "num") +
           Cell(Opt(v.point.time_seconds, FormatSeconds), "num") +
           Cell(Opt(v.achieved_flops, FormatFlops), "num") +
           Cell(Opt(v.attainable_flops, FormatFlops), "num") +
           fmt::format("<td class=\"bound-{}\">{}</td>", BoundName(v.bound), E(bound)) +
           Cell(Opt(v.fraction_of_roof, Percent), "num") +
           Cell(Opt(v.headroom_seconds, FormatSeconds), "num") + Cell(v.point.formula, "formula") +
           "</tr>\n";
  }
  out += "</table>\n";
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    for (const std::string& note : a.verdicts[i].notes) {
      out += fmt::format("<p class=\"note\">Point {}: {}</p>\n", i + 1, E(note));
    }
  }
  out += "<h3>Where the time goes</h3>\n<table>\n" +
         Header({"bound", "points", "measured", "share", "at the roofs", "headroom"});
  for (const BoundSummary& s : a.by_bound) {
    out +=
        fmt::format("<tr><td class=\"bound-{}\">{}</td>", BoundName(s.bound), BoundName(s.bound)) +
        Cell(std::to_string(s.points), "num") + Cell(FormatSeconds(s.measured_seconds), "num") +
        Cell(a.measured_seconds > 0 ? Percent(s.measured_seconds / a.measured_seconds) : "-",
             "num") +
        Cell(FormatSeconds(s.roof_seconds), "num") +
        Cell(FormatSeconds(s.headroom_seconds), "num") + "</tr>\n";
  }
  out += "<tr><td><b>total</b></td><td></td>" + Cell(FormatSeconds(a.measured_seconds), "num") +
         "<td></td><td></td>" + Cell(FormatSeconds(a.headroom_seconds), "num") + "</tr>\n";
  out += "</table>\n";
  out += "<h2>Advice</h2>\n";
  if (report.advice.empty()) out += "<p class=\"note\">No rule applies.</p>\n";
  for (const Advice& advice : report.advice) {
    out += fmt::format(
        "<div class=\"advice\"><span class=\"rule\">{}</span> &mdash; <b>{}</b><br/>{}<br/>"
        "<i>Why:</i> {}<br/><i>Expected gain:</i> {}</div>\n",
        E(advice.rule), E(advice.point), E(advice.advice), E(advice.reason),
        E(advice.expected_gain));
  }
  return out;
}

std::string SpecHtml(const Report& report) {
  std::string out = "<h2>Spec comparison</h2>\n";
  if (!report.spec) {
    return out + "<p class=\"note\">" +
           E(report.spec_note.empty() ? "No spec sheet given (--spec FILE or --spec auto)."
                                      : report.spec_note) +
           "</p>\n";
  }
  const spec::SpecSheet& sheet = *report.spec;
  out += fmt::format("<p class=\"meta\">{} ({}), {}</p>\n<table>\n", E(sheet.device),
                     E(sheet.vendor), E(sheet.source));
  out += Header({"quantity", "spec", "measured", "measured / spec", "measured by"});
  auto row = [&](const std::string& name, double spec_value, const Ceiling* measured,
                 bool compute) {
    const auto format = compute ? FormatFlops : FormatBandwidth;
    const bool have = measured != nullptr && measured->source == CeilingSource::kMeasured;
    const bool known = spec_value > 0;  // a computed sheet may not know the memory bandwidth
    const std::string unknown =
        sheet.memory_unknown_reason.empty() ? "unknown" : "unknown: " + sheet.memory_unknown_reason;
    out += "<tr>" + Cell(name) + Cell(known ? format(spec_value) : unknown, "num") +
           Cell(have ? format(measured->value) : "not measured", "num") +
           Cell(have && known ? Percent(measured->value / spec_value) : "-", "num") +
           Cell(have ? measured->benchmark + " / " + measured->metric : "-") + "</tr>\n";
  };
  for (const auto& [precision, flops] : sheet.peak_flops_per_second) {
    row(precision + " peak", flops, report.ceilings.Compute(precision), true);
  }
  row("memory bandwidth", sheet.memory_bandwidth_bytes_per_second, report.ceilings.MainMemory(),
      false);
  if (sheet.host_link) {
    row("host link h2d", sheet.host_link->rx_bytes_per_second, report.ceilings.HostLink("h2d"),
        false);
    row("host link d2h", sheet.host_link->tx_bytes_per_second, report.ceilings.HostLink("d2h"),
        false);
  }
  if (sheet.network_link) {
    row("network link", sheet.network_link->tx_bytes_per_second, report.ceilings.Network(), false);
  }
  return out + "</table>\n";
}

std::string BenchmarksHtml(const Report& report) {
  std::string out =
      "<h2>Benchmark results</h2>\n<p class=\"note\">Value from the median sample; "
      "CV = standard deviation / mean of the sample times.</p>\n";
  std::vector<std::string> order;
  std::map<std::string, std::vector<const BenchRecord*>> groups;
  for (const BenchRecord& r : report.results.records) {
    if (groups[r.benchmark].empty()) order.push_back(r.benchmark);
    groups[r.benchmark].push_back(&r);
  }
  for (const std::string& name : order) {
    out += fmt::format("<details open><summary>{} ({} records)</summary>\n<table>\n", E(name),
                       groups[name].size());
    out += Header({"metric", "parameters", "median value", "unit", "median s/rep", "CV", "samples",
                   "% of nominal", "formula"});
    for (const BenchRecord* r : groups[name]) {
      out += "<tr>" + Cell(r->metric) + Cell(ParametersText(r->parameters)) +
             Cell(fmt::format("{:.4g}", r->value), "num") + Cell(r->unit) +
             Cell(fmt::format("{:.4g}", r->median_seconds), "num") +
             Cell(fmt::format("{:.1f}%", 100 * r->cv), "num") +
             Cell(std::to_string(r->samples), "num") +
             Cell(r->nominal_peak && *r->nominal_peak > 0
                      ? fmt::format("{:.1f}%", 100 * r->value / *r->nominal_peak)
                      : "-",
                  "num") +
             Cell(r->formula, "formula") + "</tr>\n";
    }
    out += "</table>\n</details>\n";
  }
  if (!report.results.skipped.empty()) {
    out += "<h3>Not measured</h3>\n<ul>\n";
    for (const std::string& s : report.results.skipped) out += "<li>" + E(s) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

std::string EnvironmentHtml(const Report& report) {
  const nlohmann::json& env = report.results.environment;
  std::string out = "<h2>Environment</h2>\n<table>\n";
  for (const char* key :
       {"compiler", "simd_kernels", "openmp", "openblas", "nominal_fp64_peak", "allowed_cpus"}) {
    if (!env.contains(key)) continue;
    const nlohmann::json& value = env[key];
    out += "<tr>" + Cell(key) +
           Cell(value.is_string() ? value.get<std::string>() : value.dump(), "formula") + "</tr>\n";
  }
  if (env.contains("device") && env["device"].contains("topology")) {
    out +=
        "<tr>" + Cell("topology") + Cell(env["device"]["topology"].dump(), "formula") + "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string RenderHtml(const Report& report) {
  const std::string& host = report.results.host;
  const std::string title = fmt::format("xpuperf report: {}{}", report.results.device_model,
                                        host.empty() ? std::string() : " (" + host + ")");
  std::string out = render::HtmlPageStart(title, kStyle);
  out += "<h1>" + E(title) + "</h1>\n";
  if (!report.source_note.empty()) {
    out += fmt::format("<p class=\"meta\">{} &middot; xpuperf {}</p>\n", E(report.source_note),
                       kVersion);
  } else {
    out += fmt::format(
        "<p class=\"meta\">Run {} &middot; backend {} &middot; results {} &middot; xpuperf "
        "{}</p>\n",
        E(report.results.run_id), E(report.results.backend), E(report.results.directory), kVersion);
  }
  out +=
      "<h2>Roofline</h2>\n<p class=\"note\">Hover a point, line or ridge marker for its "
      "numbers.</p>\n";
  out += RenderSvgElement(report);
  out += CeilingsHtml(report);
  out += VerdictsHtml(report);
  out += SpecHtml(report);
  out += BenchmarksHtml(report);
  out += EnvironmentHtml(report);
  out += render::HtmlPageEnd();
  return out;
}

}  // namespace xpuperf::roofline

// `xpuperf compare`: two result directories (benchmark medians) or two traces (trace diff).
#include "xpuperf/bench_commands/compare_command.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>

#include "xpuperf/analysis/spec_check.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/render/text_table.h"

#ifdef XPUPERF_WITH_TRACES
#include "xpuperf/analyze/analyze.h"
#endif

namespace xpuperf::bench_commands {
namespace {

constexpr const char* kCommand = "xpuperf compare";

std::string FormatValue(double value) {
  return std::fabs(value) >= 100 ? fmt::format("{:.1f}", value) : fmt::format("{:.4g}", value);
}

std::string UnmatchedLine(const analysis::UnmatchedMeasurement& u) {
  const std::string parameters = analysis::FormatParameters(u.parameters);
  return fmt::format("  {} {}{}{}: {} {}\n", u.benchmark, u.metric, parameters.empty() ? "" : " ",
                     parameters, FormatValue(u.value), u.unit);
}

// Per benchmark, the parameter keys whose values differ between its compared measurements (a key
// absent from some counts as a value): the ones that tell rows apart; threads=2 on every row says
// nothing, and fractional values are figures measured during the run.
std::map<std::string, std::set<std::string>> DistinguishingKeys(
    const analysis::ComparisonReport& report) {
  std::map<std::string, std::vector<const nlohmann::json*>> by_benchmark;
  for (const auto& c : report.compared) by_benchmark[c.benchmark].push_back(&c.parameters);
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [benchmark, rows] : by_benchmark) {
    std::set<std::string> keys;
    for (const nlohmann::json* parameters : rows) {
      if (!parameters->is_object()) continue;
      for (auto it = parameters->begin(); it != parameters->end(); ++it) keys.insert(it.key());
    }
    for (const std::string& key : keys) {
      std::set<std::string> values;
      bool measured = false;  // a fractional number is a figure of the run, not a setting
      for (const nlohmann::json* parameters : rows) {
        if (!parameters->contains(key)) {
          values.insert("<absent>");
          continue;
        }
        const nlohmann::json& value = (*parameters)[key];
        measured = measured || (value.is_number_float() &&
                                value.get<double>() != std::trunc(value.get<double>()));
        values.insert(value.dump());
      }
      if (values.size() > 1 && !measured) out[benchmark].insert(key);
    }
  }
  return out;
}

std::string ShortParameters(const nlohmann::json& parameters, const std::set<std::string>& keys) {
  nlohmann::json shown = nlohmann::json::object();
  if (parameters.is_object()) {
    for (auto it = parameters.begin(); it != parameters.end(); ++it) {
      if (keys.count(it.key())) shown[it.key()] = *it;
    }
  }
  return analysis::FormatParameters(shown);
}

Result<CompareInputs> ClassifyInputs(const std::string& old_path, const std::string& new_path) {
  namespace fs = std::filesystem;
  std::error_code error;
  for (const std::string& path : {old_path, new_path}) {
    if (!fs::exists(path, error)) {
      return MakeError(ErrorCode::kNotFound, fmt::format("no such file or directory: {}", path));
    }
  }
  const bool old_dir = fs::is_directory(old_path, error);
  const bool new_dir = fs::is_directory(new_path, error);
  if (old_dir && new_dir) return CompareInputs::kResultDirectories;
  if (!old_dir && !new_dir) return CompareInputs::kFiles;
  return CompareInputs::kMixed;
}

int CompareResultDirectories(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  auto old_run = bench::ReadResultDirectory(options.old_path);
  if (!old_run.ok()) {
    err << kCommand << ": error: " << old_run.error().message << "\n";
    return ExitCodeFor(old_run.error());
  }
  auto new_run = bench::ReadResultDirectory(options.new_path);
  if (!new_run.ok()) {
    err << kCommand << ": error: " << new_run.error().message << "\n";
    return ExitCodeFor(new_run.error());
  }
  err << bench::PartialRunNote(*old_run, kCommand) << bench::PartialRunNote(*new_run, kCommand);
  const analysis::ComparisonReport report =
      analysis::CompareResults(*old_run, *new_run, options.alpha);
  std::vector<const analysis::MetricComparison*> over;
  if (options.fail_on_regression_percent) {
    over = report.RegressionsOver(*options.fail_on_regression_percent);
  }
  // The gate judges metrics present in both runs with samples; with none it must not pass.
  const int judged = static_cast<int>(report.compared.size()) -
                     report.Count(analysis::ChangeVerdict::kNoSamples) -
                     report.Count(analysis::ChangeVerdict::kUnstable);
  const bool nothing = options.fail_on_regression_percent && judged == 0;
  if (options.json) {
    nlohmann::json json = analysis::ToJson(report);
    if (options.fail_on_regression_percent) {
      json["fail_on_regression_percent"] = *options.fail_on_regression_percent;
      json["failed"] = !over.empty() || nothing;
      json["judged"] = judged;
      if (nothing) json["verdict"] = "nothing to judge";
    }
    out << json.dump(2) << "\n";
  } else {
    out << RenderComparison(report);
    if (options.fail_on_regression_percent) {
      if (nothing) {
        out << "NOTHING TO JUDGE: no stable metric with samples in both runs (exit 3)\n";
      } else if (over.empty()) {
        out << fmt::format("PASS: no regression outside the noise larger than {:g}%\n",
                           *options.fail_on_regression_percent);
      } else {
        std::string list;
        for (const analysis::MetricComparison* c : over) {
          list += fmt::format("{}{} {} {:+.1f}%", list.empty() ? "" : "; ", c->benchmark, c->metric,
                              *c->change_percent);
        }
        out << fmt::format("FAIL: {} regression(s) outside the noise larger than {:g}%: {}\n",
                           over.size(), *options.fail_on_regression_percent, list);
      }
    }
  }
  if (nothing) {
    err << kCommand
        << ": error: --fail-on-regression: nothing to judge: no stable metric with samples in both "
        << options.old_path << " and " << options.new_path << "\n";
    return kExitNothingToJudge;
  }
  return over.empty() ? kExitOk : kExitFailure;
}

}  // namespace

std::string RenderComparison(const analysis::ComparisonReport& report) {
  std::string text =
      fmt::format("Comparison of {} ({}) -> {} ({}); Mann-Whitney alpha {:g}\n", report.old_path,
                  report.old_device, report.new_path, report.new_device, report.alpha);
  if (report.old_device != report.new_device) {
    text += fmt::format("note: the runs are on different devices ({} and {})\n", report.old_device,
                        report.new_device);
  }
  const std::map<std::string, std::set<std::string>> keys = DistinguishingKeys(report);
  const std::set<std::string> none;
  bool ranges_used = false;
  render::TextTable table("", {{"benchmark"},
                               {"metric"},
                               {"parameters"},
                               {"old median", render::TextTable::Align::kRight},
                               {"new median", render::TextTable::Align::kRight},
                               {"unit"},
                               {"change", render::TextTable::Align::kRight},
                               {"p", render::TextTable::Align::kRight},
                               {"ranges"},
                               {"verdict"}});
  for (const analysis::MetricComparison& c : report.compared) {
    auto shown = keys.find(c.benchmark);
    const bool by_ranges = c.test && c.test->min_p_value >= report.alpha;
    ranges_used = ranges_used || by_ranges;
    table.AddRow({c.benchmark, c.metric,
                  ShortParameters(c.parameters, shown != keys.end() ? shown->second : none),
                  FormatValue(c.old_value), FormatValue(c.new_value), c.unit,
                  c.change_percent ? fmt::format("{:+.1f}%", *c.change_percent) : "-",
                  c.test ? fmt::format("{:.3g}", c.test->p_value) : "-",
                  c.verdict == analysis::ChangeVerdict::kNoSamples
                      ? "-"
                      : (c.ranges_overlap ? "overlap" : "apart"),
                  c.verdict == analysis::ChangeVerdict::kUnchanged && by_ranges
                      ? std::string("unchanged (noise; ranges)")
                      : std::string(analysis::ChangeVerdictName(c.verdict)) +
                            (by_ranges ? " (ranges)" : "")});
  }
  if (!table.empty()) text += table.Render(60);
  if (ranges_used) {
    text += fmt::format(
        "(ranges): too few samples for the test ever to reach p < {:g}; outside the noise when "
        "the min-max ranges of the samples are apart\n",
        report.alpha);
  }
  for (const analysis::MetricComparison& c : report.compared) {
    if (c.verdict != analysis::ChangeVerdict::kUnstable) continue;
    text +=
        fmt::format("unstable, not judged: {} {}: {}\n", c.benchmark, c.metric,
                    c.unstable_reasons.empty() ? "marked unstable" : c.unstable_reasons.front());
  }
  if (!report.only_old.empty()) {
    text += fmt::format("Only in OLD ({}):\n", report.only_old.size());
    for (const auto& u : report.only_old) text += UnmatchedLine(u);
  }
  if (!report.only_new.empty()) {
    text += fmt::format("Only in NEW ({}):\n", report.only_new.size());
    for (const auto& u : report.only_new) text += UnmatchedLine(u);
  }
  using analysis::ChangeVerdict;
  text +=
      fmt::format("{} compared: {} improved, {} regressed, {} unchanged (noise)",
                  report.compared.size(), report.Count(ChangeVerdict::kImproved),
                  report.Count(ChangeVerdict::kRegressed), report.Count(ChangeVerdict::kUnchanged));
  if (const int changed = report.Count(ChangeVerdict::kChanged); changed > 0) {
    text += fmt::format(", {} changed (direction unknown)", changed);
  }
  if (const int none = report.Count(ChangeVerdict::kNoSamples); none > 0) {
    text += fmt::format(", {} without samples", none);
  }
  if (const int unstable = report.Count(ChangeVerdict::kUnstable); unstable > 0) {
    text += fmt::format(", {} unstable (not judged)", unstable);
  }
  text += fmt::format("; {} only in OLD, {} only in NEW\n", report.only_old.size(),
                      report.only_new.size());
  return text;
}

int RunCompare(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  if (options.fail_on_regression_percent && (!std::isfinite(*options.fail_on_regression_percent) ||
                                             *options.fail_on_regression_percent < 0)) {
    err << kCommand << ": error: --fail-on-regression must be a percentage >= 0\n";
    return kExitUsage;
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    err << kCommand << ": error: --alpha must be between 0 and 1\n";
    return kExitUsage;
  }
  auto inputs = ClassifyInputs(options.old_path, options.new_path);
  if (!inputs.ok()) {
    err << kCommand << ": error: " << inputs.error().message << "\n";
    return ExitCodeFor(inputs.error());
  }
  switch (*inputs) {
    case CompareInputs::kResultDirectories:
      return CompareResultDirectories(options, out, err);
    case CompareInputs::kFiles:  // two traces: ops added/removed, count and time changes
#ifdef XPUPERF_WITH_TRACES
      return analyze::RunTraceCompare(
          analyze::TraceCompareOptions{options.old_path, options.new_path, options.json, 20}, out,
          err);
#else
      err << kCommand
          << ": error: comparing two traces is not available: this build has no trace "
             "support (XPUPERF_WITH_TRACES=OFF)\n";
      return kExitUsage;
#endif
    case CompareInputs::kMixed:
      err << kCommand << ": error: OLD and NEW must both be result directories (one is a file)\n";
      return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace xpuperf::bench_commands

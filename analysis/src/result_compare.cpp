#include "xpuperf/analysis/result_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "xpuperf/core/json.h"

namespace xpuperf::analysis {
namespace {

using bench::ResultRecord;

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Parameters that name the software a run used, not a sweep setting: comparing two versions of a
// PJRT plugin (a libtpu upgrade) must pair their records.
constexpr std::string_view kEnvironmentParameters[] = {"plugin", "platform_version", "pjrt_api",
                                                       "nominal_suspect"};

// The parameters a sweep sets: without fractional numbers (figures measured during the run, such
// as attention's fp32_gemm_gflops), objects and arrays (descriptions of the run, such as
// peak_fma's clock; sweep settings are scalars), and the software's versions and paths.
bench::Measurement WithoutMeasuredParameters(const bench::Measurement& m) {
  bench::Measurement out;
  out.benchmark = m.benchmark;
  out.metric = m.metric;
  out.parameters = nlohmann::json::object();
  if (!m.parameters.is_object()) return out;
  for (auto it = m.parameters.begin(); it != m.parameters.end(); ++it) {
    if (it->is_number_float() && it->get<double>() != std::trunc(it->get<double>())) continue;
    if (it->is_structured()) continue;
    if (std::find(std::begin(kEnvironmentParameters), std::end(kEnvironmentParameters), it.key()) !=
        std::end(kEnvironmentParameters)) {
      continue;
    }
    out.parameters[it.key()] = *it;
  }
  return out;
}

// Keys of the records of one run, in order, with "#n" appended to repeats.
std::vector<std::string> Keys(const std::vector<ResultRecord>& records, bool loose) {
  std::map<std::string, int> seen;
  std::vector<std::string> keys;
  for (const ResultRecord& r : records) {
    std::string key =
        MeasurementKey(loose ? WithoutMeasuredParameters(r.measurement) : r.measurement);
    const int count = ++seen[key];
    if (count > 1) key += "#" + std::to_string(count);
    keys.push_back(std::move(key));
  }
  return keys;
}

UnmatchedMeasurement Unmatched(const bench::Measurement& m) {
  return {m.benchmark, m.metric, m.parameters, m.unit, m.value};
}

MetricComparison Compare(const bench::Measurement& old_m, const bench::Measurement& new_m,
                         double alpha) {
  MetricComparison c;
  c.benchmark = new_m.benchmark;
  c.metric = new_m.metric;
  c.parameters = new_m.parameters;
  c.unit = new_m.unit;
  c.old_value = old_m.value;
  c.new_value = new_m.value;
  if (old_m.value != 0) c.change_percent = 100 * (new_m.value - old_m.value) / old_m.value;
  const std::vector<double>& a = old_m.sample_seconds;
  const std::vector<double>& b = new_m.sample_seconds;
  if (a.empty() || b.empty()) {
    c.basis = "no samples";
    c.verdict = ChangeVerdict::kNoSamples;
    return c;
  }
  const auto [a_min, a_max] = std::minmax_element(a.begin(), a.end());
  const auto [b_min, b_max] = std::minmax_element(b.begin(), b.end());
  c.ranges_overlap = !(*a_max < *b_min || *b_max < *a_min);
  auto test = MannWhitneyU(a, b);
  if (test.ok()) c.test = *test;
  if (c.test && c.test->min_p_value < alpha) {
    c.outside_noise = c.test->p_value < alpha;
    c.basis = fmt::format("mann-whitney p={:.3g}", c.test->p_value);
  } else {
    c.outside_noise = !c.ranges_overlap;
    c.basis = fmt::format("min-max ranges ({} vs {} samples: the test cannot reach p < {:g})",
                          a.size(), b.size(), alpha);
  }
  // The samples' own spread: a change within twice the larger robust CV is scatter.
  const double spread = 2 * std::max(old_m.statistics.robust_cv, new_m.statistics.robust_cv);
  if (c.outside_noise && c.change_percent && std::abs(*c.change_percent) <= 100 * spread) {
    c.outside_noise = false;
    c.basis += fmt::format("; change within twice the samples' robust CV ({:.1f}%)", 100 * spread);
  }
  for (const std::string& reason : old_m.unstable_reasons) {
    c.unstable_reasons.push_back("old: " + reason);
  }
  for (const std::string& reason : new_m.unstable_reasons) {
    c.unstable_reasons.push_back("new: " + reason);
  }
  if (c.unstable_reasons.empty() && (!old_m.stable || !new_m.stable)) {
    c.unstable_reasons.push_back("marked unstable");
  }
  const int better = BetterDirection(c.unit, c.metric);
  if (!old_m.stable || !new_m.stable) {
    c.verdict = ChangeVerdict::kUnstable;
  } else if (!c.outside_noise || new_m.value == old_m.value) {
    c.verdict = ChangeVerdict::kUnchanged;
  } else if (better == 0) {
    c.verdict = ChangeVerdict::kChanged;
  } else {
    c.verdict = (new_m.value - old_m.value) * better > 0 ? ChangeVerdict::kImproved
                                                         : ChangeVerdict::kRegressed;
  }
  return c;
}

nlohmann::json UnmatchedJson(const std::vector<UnmatchedMeasurement>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const UnmatchedMeasurement& u : list) {
    out.push_back({{"benchmark", u.benchmark},
                   {"metric", u.metric},
                   {"parameters", u.parameters},
                   {"unit", u.unit},
                   {"value", u.value}});
  }
  return out;
}

}  // namespace

std::string_view ChangeVerdictName(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kImproved:
      return "improved";
    case ChangeVerdict::kRegressed:
      return "regressed";
    case ChangeVerdict::kUnchanged:
      return "unchanged (noise)";
    case ChangeVerdict::kChanged:
      return "changed";
    case ChangeVerdict::kNoSamples:
      return "no samples";
    case ChangeVerdict::kUnstable:
      return "unstable (not judged)";
  }
  return "?";
}

int BetterDirection(std::string_view unit, std::string_view metric) {
  if (metric.find("latency") != std::string_view::npos) return -1;
  if (EndsWith(unit, "/s")) return 1;
  static const std::set<std::string, std::less<>> kTimes = {"s",  "ms",      "us",
                                                            "ns", "seconds", "\xC2\xB5s"};
  if (kTimes.count(unit)) return -1;
  return 0;
}

int ComparisonReport::Count(ChangeVerdict verdict) const {
  return static_cast<int>(std::count_if(compared.begin(), compared.end(),
                                        [verdict](const auto& c) { return c.verdict == verdict; }));
}

std::vector<const MetricComparison*> ComparisonReport::RegressionsOver(double percent) const {
  std::vector<const MetricComparison*> out;
  for (const MetricComparison& c : compared) {
    if (c.verdict == ChangeVerdict::kRegressed && c.change_percent &&
        std::abs(*c.change_percent) > percent) {
      out.push_back(&c);
    }
  }
  return out;
}

std::string MeasurementKey(const bench::Measurement& m) {
  return m.benchmark + "|" + m.metric + "|" + m.parameters.dump();
}

ComparisonReport CompareResults(const bench::ResultDirectory& old_run,
                                const bench::ResultDirectory& new_run, double alpha) {
  ComparisonReport report;
  report.old_path = old_run.path;
  report.new_path = new_run.path;
  report.old_device = old_run.device.model;
  report.new_device = new_run.device.model;
  report.alpha = alpha;
  // Exact keys first; what is left on both sides then pairs on the keys without measured
  // parameters.
  std::vector<std::optional<size_t>> partner(new_run.records.size());
  std::set<size_t> matched;
  for (const bool loose : {false, true}) {
    const std::vector<std::string> old_keys = Keys(old_run.records, loose);
    const std::vector<std::string> new_keys = Keys(new_run.records, loose);
    std::map<std::string, size_t> old_index;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (!matched.count(i)) old_index.emplace(old_keys[i], i);
    }
    for (size_t i = 0; i < new_keys.size(); ++i) {
      if (partner[i]) continue;
      auto it = old_index.find(new_keys[i]);
      if (it == old_index.end()) continue;
      partner[i] = it->second;
      matched.insert(it->second);
      old_index.erase(it);
    }
  }
  for (size_t i = 0; i < new_run.records.size(); ++i) {
    const bench::Measurement& new_m = new_run.records[i].measurement;
    if (!partner[i]) {
      report.only_new.push_back(Unmatched(new_m));
      continue;
    }
    report.compared.push_back(Compare(old_run.records[*partner[i]].measurement, new_m, alpha));
  }
  for (size_t i = 0; i < old_run.records.size(); ++i) {
    if (!matched.count(i)) report.only_old.push_back(Unmatched(old_run.records[i].measurement));
  }
  return report;
}

nlohmann::json ToJson(const ComparisonReport& report) {
  nlohmann::json compared = nlohmann::json::array();
  for (const MetricComparison& c : report.compared) {
    nlohmann::json test;
    if (c.test) {
      test = {{"u_old", c.test->u1},
              {"u_new", c.test->u2},
              {"p_value", c.test->p_value},
              {"method", c.test->exact ? "exact" : "normal approximation"},
              {"min_p_value", c.test->min_p_value}};
    }
    compared.push_back({{"benchmark", c.benchmark},
                        {"metric", c.metric},
                        {"parameters", c.parameters},
                        {"unit", c.unit},
                        {"old_median", c.old_value},
                        {"new_median", c.new_value},
                        {"change_percent",
                         c.change_percent ? nlohmann::json(*c.change_percent) : nlohmann::json()},
                        {"mann_whitney", test},
                        {"ranges_overlap", c.ranges_overlap},
                        {"outside_noise", c.outside_noise},
                        {"basis", c.basis},
                        {"verdict", ChangeVerdictName(c.verdict)},
                        {"unstable_reasons", c.unstable_reasons}});
  }
  return {{"json_schema_version", kJsonSchemaVersion},
          {"old", report.old_path},
          {"new", report.new_path},
          {"old_device", report.old_device},
          {"new_device", report.new_device},
          {"alpha", report.alpha},
          {"compared", compared},
          {"only_old", UnmatchedJson(report.only_old)},
          {"only_new", UnmatchedJson(report.only_new)},
          {"summary",
           {{"improved", report.Count(ChangeVerdict::kImproved)},
            {"regressed", report.Count(ChangeVerdict::kRegressed)},
            {"unchanged", report.Count(ChangeVerdict::kUnchanged)},
            {"changed", report.Count(ChangeVerdict::kChanged)},
            {"no_samples", report.Count(ChangeVerdict::kNoSamples)},
            {"unstable", report.Count(ChangeVerdict::kUnstable)},
            {"only_old", report.only_old.size()},
            {"only_new", report.only_new.size()}}}};
}

}  // namespace xpuperf::analysis

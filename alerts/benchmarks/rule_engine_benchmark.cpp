// One evaluation round of 100 rules over 64 devices with 15 minutes of 1 s history, as
// `serve --rules` runs every second: the 16 shipped rules plus 84 variants of their alerting rules
// (other thresholds, so other rule names and results), over the series the exporter writes for a
// GPU (duty cycle, memory, temperature, power, 9 clock-event reasons, 4 error counters, device_up,
// 4-bucket transfer-latency and op-time histograms). Each iteration appends one second of
// samples for every series, evaluates every rule and trims the history, so the timed work is
// exactly what one second costs. CPU time per iteration / 1 s = share of one core.
#include <benchmark/benchmark.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "xpuperf/alerts/rule_engine.h"
#include "xpuperf/alerts/rule_file.h"

namespace xpuperf::alerts {
namespace {

constexpr int kDevices = 64;
constexpr int64_t kHistoryMs = int64_t{15} * 60 * 1000;

std::string ShippedRules() {
  std::ifstream in(XPUPERF_RULES_FILE);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `expr` with the matcher uuid!="variant<i>" added to its first selector: a rule that shares no
// subexpression with the others (it selects the same series; no uuid is called that).
std::string Distinct(const std::string& expr, int i) {
  static const std::regex first_selector(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{|\[| |$))");
  std::smatch m;
  if (!std::regex_search(expr, m, first_selector)) return expr;
  const std::string matcher = "uuid!=\"variant" + std::to_string(i) + "\"";
  const std::string selector = m[2] == "{" ? m[1].str() + "{" + matcher + ", "
                                           : m[1].str() + "{" + matcher + "}" + m[2].str();
  return m.prefix().str() + selector + m.suffix().str();
}

// The shipped file, then a group with 84 alerting rules derived from its alerts (other
// thresholds; with `distinct`, also another selector, so that no two rules share a subexpression).
Result<std::vector<RuleFile>> HundredRules(bool distinct) {
  std::vector<RuleFile> files;
  XPUPERF_ASSIGN_OR_RETURN(RuleFile shipped, ParseRuleFile(ShippedRules(), XPUPERF_RULES_FILE));
  files.push_back(std::move(shipped));
  std::vector<std::string> exprs;
  for (const RuleGroup& g : files[0].groups) {
    for (const Rule& r : g.rules) {
      if (r.is_alert) exprs.push_back(r.expr_text);
    }
  }
  std::string extra = "groups:\n  - name: variants\n    rules:\n";
  const std::regex number(R"(([<>]=?) ([0-9.]+)$)");
  for (int i = 0; i < 84; ++i) {
    std::string expr = exprs[static_cast<size_t>(i) % exprs.size()];
    expr = std::regex_replace(expr, number, "$1 $02" + std::to_string(i % 10));
    if (distinct) expr = Distinct(expr, i);
    extra += "      - alert: Variant" + std::to_string(i) + "\n        expr: '" + expr +
             "'\n        for: 5m\n        labels: {severity: warning}\n"
             "        annotations: {summary: '{{ $labels.device }} at {{ $value }}'}\n";
  }
  XPUPERF_ASSIGN_OR_RETURN(RuleFile variants, ParseRuleFile(extra, "variants"));
  files.push_back(std::move(variants));
  return files;
}

struct Fleet {
  struct Series {
    Labels labels;
    double value;
    double step;  // counters grow by this each second
  };
  std::vector<Series> series;

  Fleet() {
    auto device = [](int d) {
      return std::vector<std::pair<std::string, std::string>>{
          {"backend", "nvidia"},
          {"device", "nvidia" + std::to_string(d)},
          {"hostname", "node1"},
          {"model", "NVIDIA H100 80GB HBM3"},
          {"uuid", "GPU-" + std::to_string(1000 + d)},
          {"pod", "train-" + std::to_string(d)},
          {"namespace", "ml"}};
    };
    auto add = [&](int d, const std::string& name,
                   std::vector<std::pair<std::string, std::string>> extra, double v, double step) {
      auto items = device(d);
      items.emplace_back("__name__", name);
      for (auto& e : extra) items.push_back(std::move(e));
      series.push_back({Labels(std::move(items)), v, step});
    };
    for (int d = 0; d < kDevices; ++d) {
      add(d, "xpuperf_duty_cycle_ratio", {}, 0.8, 0);
      add(d, "xpuperf_memory_used_bytes", {}, 60e9, 0);
      add(d, "xpuperf_memory_total_bytes", {}, 80e9, 0);
      add(d, "xpuperf_temperature_celsius", {{"sensor", "gpu"}}, 70, 0);
      add(d, "xpuperf_temperature_celsius", {{"sensor", "memory"}}, 75, 0);
      add(d, "xpuperf_power_watts", {{"domain", "gpu"}}, 500, 0);
      for (const char* reason :
           {"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
            "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
            "display_clock_setting"}) {
        add(d, "xpuperf_clock_event_active", {{"reason", reason}}, 0, 0);
      }
      for (const char* type : {"ecc_uncorrected_volatile", "ecc_corrected_volatile",
                               "xid_since_start", "remapped_rows_failure"}) {
        add(d, "xpuperf_errors_total", {{"type", type}}, 0, 0);
      }
      add(d, "xpuperf_device_up", {}, 1, 0);
      int bucket = 0;
      for (const char* le : {"0.001", "0.005", "0.01", "+Inf"}) {
        add(d, "xpuperf_transfer_latency_seconds_bucket", {{"buffer_size", "1MiB"}, {"le", le}}, 0,
            90.0 + 3 * bucket);
        add(d, "xpuperf_op_execution_time_seconds_bucket", {{"op", "fusion.1"}, {"le", le}}, 0,
            9.0 + bucket);
        ++bucket;
      }
    }
  }

  void Append(MemorySeriesSource& source, int64_t t_ms) {
    for (Series& s : series) {
      s.value += s.step;
      source.Append(s.labels, {t_ms, s.value});
    }
  }
};

// state.range(0): 0 = the variants share their subexpressions with the shipped rules (a warning
// and a critical threshold over one expression), 1 = every rule selects on its own.
void BM_HundredRulesSixtyFourDevicesOneSecond(benchmark::State& state) {
  auto files = HundredRules(state.range(0) != 0);
  if (!files.ok()) {
    state.SkipWithError(files.error().message.c_str());
    return;
  }
  RuleEngine engine(std::move(*files));
  Fleet fleet;
  MemorySeriesSource source;
  int64_t t = 0;
  for (; t < kHistoryMs; t += 1000) fleet.Append(source, t);  // 15 minutes of history first
  size_t errors = 0;
  for (auto _ : state) {
    fleet.Append(source, t);
    errors += engine.EvaluateAll(source, t).size();
    source.Trim(t - kHistoryMs);
    t += 1000;
  }
  state.counters["rules"] = static_cast<double>(engine.rule_count());
  state.counters["series"] = static_cast<double>(source.series_count());
  state.counters["alerts"] = static_cast<double>(engine.Alerts().size());
  state.counters["errors"] = static_cast<double>(errors);
}
BENCHMARK(BM_HundredRulesSixtyFourDevicesOneSecond)
    ->ArgName("distinct")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(3);

}  // namespace
}  // namespace xpuperf::alerts

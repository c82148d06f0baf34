// Fuzzes what users give the built-in rule engine: rule files (YAML, PromQL, templates), promtool
// series notation, alert state files and label regexes. First byte selects the parser. A parsed
// expression is also evaluated over a small fixed history, so the evaluator sees every shape the
// parser accepts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "xpuperf/alerts/promql.h"
#include "xpuperf/alerts/promtool_test.h"
#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/alerts/series.h"
#include "xpuperf/alerts/state_file.h"

using namespace xpuperf::alerts;

namespace {
const MemorySeriesSource& History() {
  static const MemorySeriesSource source = [] {
    MemorySeriesSource s;
    for (int i = 0; i < 20; ++i) {
      for (const char* le : {"0.1", "1", "+Inf"}) {
        s.Append(Labels({{"__name__", "h_bucket"}, {"le", le}, {"device", "0"}}),
                 {i * 15000, static_cast<double>(i * (le[0] == '0' ? 1 : 3))});
      }
      s.Append(Labels({{"__name__", "a"}, {"device", "0"}}),
               {i * 15000, static_cast<double>(i % 7)});
      s.Append(Labels({{"__name__", "a"}, {"device", "1"}}),
               {i * 15000, i == 10 ? StaleNaN() : 1.0});
    }
    return s;
  }();
  return source;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {
      auto expr = ParseExpr(text);
      if (expr.ok()) (void)Evaluate(**expr, History(), 300000);
      break;
    }
    case 1: {
      auto file = ParseRuleFile(text, "fuzz.yml");
      if (file.ok()) {
        std::vector<RuleFile> files;
        files.push_back(std::move(*file));
        RuleEngine engine(std::move(files));
        for (int64_t t = 0; t <= 300000; t += 60000) (void)engine.EvaluateAll(History(), t);
      }
      break;
    }
    case 2:
      (void)ParseSeriesValues(text);
      break;
    case 3:
      (void)ParseAlertState(text);
      break;
    case 4: {
      // A label regex (RE2) and a label value, split at the first newline: any pattern compiles
      // or is refused, and matching any value ends.
      const size_t newline = text.find('\n');
      const std::string pattern = text.substr(0, newline);
      const std::string value = newline == std::string::npos ? "" : text.substr(newline + 1);
      auto matcher = LabelMatcher::Make("l", LabelMatcher::Op::kRegexMatch, pattern);
      if (matcher.ok()) (void)matcher->Matches(value);
      break;
    }
  }
  return 0;
}

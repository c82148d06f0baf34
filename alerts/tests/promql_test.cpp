// The PromQL subset: what is refused (with the position), and evaluation results worked out by
// hand from Prometheus 2.42's definitions.
#include "xpuperf/alerts/promql.h"

#include <gtest/gtest.h>

#include <cmath>

#include "xpuperf/alerts/series.h"

namespace xpuperf::alerts {
namespace {

std::string ParseError(const std::string& text) {
  auto expr = ParseExpr(text);
  return expr.ok() ? "" : expr.error().message;
}

TEST(PromqlParse, AcceptsTheSubset) {
  for (const char* text : {
           "up",
           "xpuperf_temperature_celsius{sensor=\"gpu\", backend!=\"cpu\"} >= 85",
           "rate(xpuperf_errors_total[5m]) > 0",
           "increase(x_total{type=~\"a|b\"}[10m]) > 0 and on(device) y == 1",
           "histogram_quantile(0.99, sum by (le, device) (rate(h_bucket[5m]))) > 0.005",
           "avg without(core) (avg_over_time(d[15m])) < 0.1 unless z",
           "sum(a) by (device) / sum(b) by (device)",
           "100 * a / b >= 95",
           "a > bool 3",
           "absent(up{job=\"xpuperf\"})",
           "quantile_over_time(0.9, a[5m])",
           "count(a) or vector(0)",
           "-1 + a",
           "a # a comment\n > 1",
       }) {
    EXPECT_EQ(ParseError(text), "") << text;
  }
}

TEST(PromqlParse, RefusesWhatIsOutsideWithPositionAndReason) {
  EXPECT_EQ(ParseError("rate(a[5m] offset 1m)"),
            "position 12: offset modifier is outside the subset");
  EXPECT_EQ(ParseError("a @ 100"), "position 3: @ modifier is outside the subset");
  EXPECT_EQ(ParseError("max_over_time(rate(a[1m])[5m:1m])"),
            "position 26: subqueries are outside the subset (ranges apply to selectors only)");
  EXPECT_EQ(ParseError("irate(a[5m])"),
            "position 1: function irate() is outside the supported PromQL subset");
  EXPECT_EQ(ParseError("topk(3, a)"),
            "position 1: aggregation topk is outside the supported PromQL subset");
  EXPECT_EQ(ParseError("a * on(x) group_left b"),
            "position 11: group_left (many-to-one matching) is outside the supported PromQL "
            "subset");
  EXPECT_EQ(ParseError("a % 2"), "position 3: operator '%' is outside the supported PromQL subset");
  EXPECT_EQ(ParseError("1 > 2"), "position 3: comparisons between scalars must use BOOL modifier");
  EXPECT_EQ(ParseError("rate(a)"),
            "position 6: expected type range vector in call to function \"rate\", got instant "
            "vector");
  EXPECT_EQ(ParseError("a[5m]"),
            "position 1: a range vector cannot be the result of a rule "
            "expression");
  EXPECT_EQ(ParseError("{job=~\".*\"}"),
            "position 1: vector selector must contain at least one non-empty matcher");
  EXPECT_EQ(ParseError("a and 1"),
            "position 3: set operator not allowed in binary scalar expression");
  EXPECT_EQ(ParseError("a{b=\"c\""), "position 8: expected ',' or '}' in the label matchers");
  EXPECT_EQ(ParseError("rate(a[5x])"), "position 8: bad duration \"5x\" (units: ms s m h d w y)");
  EXPECT_EQ(ParseError("a{b=~\"(\"}"), ParseError("a{b=~\"(\"}"));  // a regex error, reported
  EXPECT_NE(ParseError("a{b=~\"(\"}"), "");
  EXPECT_EQ(ParseError("-a"), "position 1: unary minus is supported on number literals only");
}

TEST(PromqlParse, RefusesNestingDeeperThanTheBoundInsteadOfOverflowingTheStack) {
  for (const std::string& open : {std::string("("), std::string("sum("), std::string("-")}) {
    std::string text;
    for (int i = 0; i < 100000; ++i) text += open;
    text += "1";
    EXPECT_NE(ParseError(text).find("nested deeper than 256 levels"), std::string::npos) << open;
  }
  // The message counts what the user wrote: 256 parentheses parse, 257 do not.
  const auto nested = [](int n) { return std::string(n, '(') + "1" + std::string(n, ')'); };
  EXPECT_EQ(ParseError(nested(255)), "");
  EXPECT_NE(ParseError(nested(257)).find("nested deeper than 256 levels"), std::string::npos);
  const std::string long_regex = std::string(9000, '(') + "a" + std::string(9000, ')');
  EXPECT_NE(ParseError("x{a=~\"" + long_regex + "\"}").find("longer than 16384 characters"),
            std::string::npos);
  // Deep but within the length bound: RE2 parses and compiles it without recursion (std::regex
  // overflowed the stack on such a pattern).
  const std::string deep_regex = std::string(4000, '(') + "a" + std::string(4000, ')');
  EXPECT_EQ(ParseError("x{a=~\"" + deep_regex + "\"}"), "");
  std::string ok = std::string(50, '(') + "up" + std::string(50, ')');
  EXPECT_EQ(ParseError(ok), "");
}

TEST(PromqlParse, Durations) {
  EXPECT_EQ(*ParseDuration("1h30m"), 5'400'000);
  EXPECT_EQ(*ParseDuration("500ms"), 500);
  EXPECT_EQ(*ParseDuration("2d"), 172'800'000);
  EXPECT_FALSE(ParseDuration("30m1h").ok());
  EXPECT_FALSE(ParseDuration("").ok());
  EXPECT_FALSE(ParseDuration("1111111111111111111m").ok());  // overflows int64 milliseconds
  EXPECT_FALSE(ParseDuration("99999999999999999999s").ok());
}

class PromqlEval : public ::testing::Test {
 protected:
  void Add(std::vector<std::pair<std::string, std::string>> labels,
           std::vector<std::pair<int64_t, double>> points) {
    Labels l(std::move(labels));
    for (auto [t, v] : points) source_.Append(l, {t * 1000, v});
  }
  std::vector<VectorSample> Eval(const std::string& text, int64_t t_s) {
    auto expr = ParseExpr(text);
    EXPECT_TRUE(expr.ok()) << expr.error().message;
    auto value = Evaluate(**expr, source_, t_s * 1000);
    EXPECT_TRUE(value.ok()) << value.error().message;
    return value->vector;
  }
  MemorySeriesSource source_;
};

TEST_F(PromqlEval, InstantSelectorLooksBackFiveMinutesAndStopsAtStaleness) {
  Add({{"__name__", "a"}, {"d", "0"}}, {{0, 1}, {60, 2}});
  Add({{"__name__", "a"}, {"d", "1"}}, {{0, 5}, {60, StaleNaN()}});
  ASSERT_EQ(Eval("a", 60).size(), 1u);
  EXPECT_EQ(Eval("a", 60)[0].value, 2);
  EXPECT_EQ(Eval("a", 360).size(), 1u);  // 60 + 300: the lookback is closed
  EXPECT_EQ(Eval("a", 361).size(), 0u);
}

TEST_F(PromqlEval, RateExtrapolatesAsPrometheus) {
  // Samples every 60 s from 0 to 300 s, +60 each: rate over [5m] at 300 s.
  std::vector<std::pair<int64_t, double>> points;
  for (int i = 0; i <= 5; ++i) points.push_back({i * 60, 60.0 * i});
  Add({{"__name__", "c_total"}}, points);
  auto out = Eval("rate(c_total[5m])", 300);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].value, 1.0);
  EXPECT_TRUE(out[0].labels.Get("__name__").empty());
  // Counter reset: 0, 60, 120, 10 -> increase 130 over 180 s of samples, range 240 s.
  Add({{"__name__", "r_total"}}, {{60, 0}, {120, 60}, {180, 120}, {240, 10}});
  out = Eval("increase(r_total[4m])", 240);
  ASSERT_EQ(out.size(), 1u);
  // durationToStart = 60 s (>= 1.1 * 60: extrapolate half a step) but the zero point is at
  // 0 s from the first sample (value 0), so no extrapolation at the start; end: 0 s.
  EXPECT_DOUBLE_EQ(out[0].value, 130.0);
}

TEST_F(PromqlEval, HistogramQuantileInterpolatesInTheBucket) {
  for (auto [le, count] : std::vector<std::pair<const char*, double>>{
           {"0.1", 50}, {"0.5", 90}, {"1", 100}, {"+Inf", 100}}) {
    Add({{"__name__", "h_bucket"}, {"le", le}, {"d", "0"}}, {{0, count}});
  }
  auto out = Eval("histogram_quantile(0.95, h_bucket)", 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].value, 0.5 + 0.5 * (5.0 / 10.0));
  EXPECT_EQ(out[0].labels.ToString(), "{d=\"0\"}");
  out = Eval("histogram_quantile(0.999, h_bucket)", 0);
  EXPECT_DOUBLE_EQ(out[0].value, 0.5 + 0.5 * 9.9 / 10);
}

TEST_F(PromqlEval, VectorMatchingAndSetOperations) {
  Add({{"__name__", "used"}, {"d", "0"}}, {{0, 96}});
  Add({{"__name__", "used"}, {"d", "1"}}, {{0, 10}});
  Add({{"__name__", "total"}, {"d", "0"}}, {{0, 100}});
  Add({{"__name__", "total"}, {"d", "1"}}, {{0, 100}});
  Add({{"__name__", "up"}, {"d", "1"}, {"extra", "x"}}, {{0, 1}});
  auto out = Eval("used / total >= 0.95", 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].labels.ToString(), "{d=\"0\"}");
  EXPECT_DOUBLE_EQ(out[0].value, 0.96);
  EXPECT_EQ(Eval("used and on(d) up", 0).size(), 1u);
  EXPECT_EQ(Eval("used and up", 0).size(), 0u);  // `extra` differs
  EXPECT_EQ(Eval("used unless on(d) up", 0)[0].labels.Get("d"), "0");
  EXPECT_EQ(Eval("used or up", 0).size(), 3u);
  out = Eval("sum by (d) (used) > bool 50", 0);
  ASSERT_EQ(out.size(), 2u);
  // Many-to-one without group_left is a run-time error, as in Prometheus.
  auto expr = ParseExpr("used / on() total");
  EXPECT_FALSE(Evaluate(**expr, source_, 0).ok());
}

TEST_F(PromqlEval, OverTimeFunctionsAndAbsent) {
  Add({{"__name__", "g"}}, {{0, 1}, {60, 5}, {120, 3}});
  EXPECT_DOUBLE_EQ(Eval("avg_over_time(g[2m])", 120)[0].value, 3);
  EXPECT_DOUBLE_EQ(Eval("max_over_time(g[2m])", 120)[0].value, 5);
  EXPECT_DOUBLE_EQ(Eval("min_over_time(g[1m])", 120)[0].value, 3);
  EXPECT_DOUBLE_EQ(Eval("count_over_time(g[2m])", 120)[0].value, 3);
  EXPECT_EQ(Eval("last_over_time(g[2m])", 120)[0].labels.Get("__name__"), "g");
  EXPECT_DOUBLE_EQ(Eval("quantile_over_time(0.5, g[2m])", 120)[0].value, 3);
  auto out = Eval("absent(nothing{job=\"x\", a=~\"b\"})", 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].labels.ToString(), "{job=\"x\"}");
  EXPECT_TRUE(Eval("absent(g)", 0).empty());
}

}  // namespace
}  // namespace xpuperf::alerts

namespace xpuperf::alerts {
namespace {

// Label regexes run on RE2, as in Prometheus: linear in the value, no recursion. On std::regex the
// first pattern took minutes (exponential backtracking) and a long value overflowed the stack.
TEST(LabelRegex, HostilePatternsAndLongValuesEndWithTheRightAnswer) {
  auto nested = LabelMatcher::Make("job", LabelMatcher::Op::kRegexMatch, "(a+)+b");
  ASSERT_TRUE(nested.ok()) << nested.error().message;
  EXPECT_FALSE(nested->Matches(std::string(100000, 'a')));
  EXPECT_TRUE(nested->Matches(std::string(100000, 'a') + "b"));
  auto star = LabelMatcher::Make("job", LabelMatcher::Op::kRegexMatch, "(a|b)*");
  ASSERT_TRUE(star.ok());
  EXPECT_TRUE(star->Matches(std::string(4 << 20, 'a')));
  auto deep = LabelMatcher::Make("job", LabelMatcher::Op::kRegexMatch,
                                 std::string(4000, '(') + "a" + std::string(4000, ')'));
  ASSERT_TRUE(deep.ok()) << deep.error().message;
  EXPECT_TRUE(deep->Matches("a"));
  EXPECT_FALSE(deep->Matches("aa"));
  auto negated = LabelMatcher::Make("job", LabelMatcher::Op::kRegexNoMatch, "(x+x+)+y");
  ASSERT_TRUE(negated.ok());
  EXPECT_TRUE(negated->Matches(std::string(50000, 'x')));
}

TEST(LabelRegex, PrometheusSemantics) {
  // Anchored at both ends; RE2 syntax (classes, alternation, (?i), \d) works; backreferences
  // and lookarounds are not RE2 and are refused.
  auto anchored = LabelMatcher::Make("instance", LabelMatcher::Op::kRegexMatch, "node-\\d+");
  ASSERT_TRUE(anchored.ok());
  EXPECT_TRUE(anchored->Matches("node-12"));
  EXPECT_FALSE(anchored->Matches("node-12.example"));
  EXPECT_FALSE(anchored->Matches("xnode-12"));
  auto folded = LabelMatcher::Make("job", LabelMatcher::Op::kRegexMatch, "(?i)Serve|agent");
  ASSERT_TRUE(folded.ok());
  EXPECT_TRUE(folded->Matches("SERVE"));
  EXPECT_TRUE(folded->Matches("agent"));
  auto empty = LabelMatcher::Make("job", LabelMatcher::Op::kRegexMatch, "");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->Matches(""));
  EXPECT_FALSE(empty->Matches("x"));
  for (const std::string bad : {"(a)\\1", "a(?=b)", "(", "a{2,1}"}) {
    auto refused = LabelMatcher::Make("job", LabelMatcher::Op::kRegexMatch, bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message.find("invalid regular expression"), std::string::npos)
        << refused.error().message;
  }
}

}  // namespace
}  // namespace xpuperf::alerts

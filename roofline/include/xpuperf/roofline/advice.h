// Advice: one table of rules, each mapping a verdict and its evidence to concrete next steps, the
// reason and the expected gain. docs/ROOFLINE.md lists the table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/roofline/verdict.h"

namespace xpuperf::roofline {

struct AdviceContext {
  const Analysis* analysis = nullptr;
  const Workload* workload = nullptr;
  const Ceilings* ceilings = nullptr;
  double device_memory_bytes = 0;  // capacity when the workload file does not give one
};

// What a rule found: why it applies and what fixing it should gain.
struct Finding {
  std::string reason;
  std::string expected_gain;
  std::optional<double> gain_seconds;  // when the gain is a time
};

enum class RuleScope { kPoint, kWorkload };

struct AdviceRule {
  std::string_view id;
  RuleScope scope = RuleScope::kPoint;
  std::string_view when;    // the condition, in words (docs and --json)
  std::string_view advice;  // the next steps
  // For kPoint rules `point` indexes analysis->verdicts; kWorkload rules get 0 and run once.
  std::optional<Finding> (*check)(const AdviceContext& context, size_t point) = nullptr;
};

struct Advice {
  std::string rule;
  std::string point;  // the point's name, or "workload"
  std::string advice;
  std::string reason;
  std::string expected_gain;
  std::optional<double> gain_seconds;
};

// Thresholds of the rules.
inline constexpr double kFarBelowRoof = 0.5;          // achieved < 50% of the compute roof
inline constexpr double kPrecisionSpeedup = 1.5;      // a lower precision >= 1.5x faster
inline constexpr double kSmallCollectiveBytes = 4e6;  // collective calls below 4 MB
inline constexpr double kMemoryNearlyFull = 0.9;      // peak >= 90% of device memory

// The rule table, in the order advice is reported.
const std::vector<AdviceRule>& AdviceRules();

// Runs every rule over the analysis: point rules per point in workload order, then workload rules.
std::vector<Advice> Advise(const AdviceContext& context);

// The lower precisions lower_precision may suggest for a point's dtype: fp64 -> fp32; fp32 ->
// tf32, bf16, fp16; tf32 -> bf16, fp16; bf16/fp16 -> fp8, int8; nothing else.
std::vector<std::string> LowerPrecisionCandidates(std::string_view dtype);
// The sentence every precision advice carries: what changes in the numerical result.
std::string PrecisionChangeCaveat(std::string_view from, std::string_view to);

}  // namespace xpuperf::roofline

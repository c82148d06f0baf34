// The PromQL subset the built-in rule engine evaluates (docs/ALERTS.md, "The PromQL subset"):
// number literals, instant and range selectors with label matchers, rate/increase/delta, the
// *_over_time range functions, histogram_quantile, absent, vector, arithmetic (+ - * /) and
// comparisons (with `bool`) between vectors and scalars with one-to-one on/ignoring matching,
// and/or/unless, and sum/min/max/avg/count by/without. Everything else — offset, @, subqueries,
// group_left/right, other functions — is refused by ParseExpr with its position, never
// evaluated differently from Prometheus 2.42.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xpuperf/alerts/series.h"
#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

enum class ValueType { kScalar, kInstantVector, kRangeVector };

enum class NodeKind { kNumber, kVectorSelector, kMatrixSelector, kCall, kAggregate, kBinary };

enum class BinaryOp { kOr, kAnd, kUnless, kEq, kNe, kGt, kLt, kGe, kLe, kAdd, kSub, kMul, kDiv };

enum class AggregateOp { kSum, kMin, kMax, kAvg, kCount };

struct ExprNode {
  NodeKind kind = NodeKind::kNumber;
  ValueType type = ValueType::kScalar;
  size_t position = 0;  // byte offset in the expression, for messages

  double number = 0;                            // kNumber
  std::string metric_name;                      // selectors ("" when only matchers name the series)
  std::vector<LabelMatcher> matchers;           // selectors, the name matcher included
  int64_t range_ms = 0;                         // kMatrixSelector
  std::string function;                         // kCall
  std::vector<std::unique_ptr<ExprNode>> args;  // kCall args; kAggregate/kBinary operands
  AggregateOp aggregate = AggregateOp::kSum;
  bool without = false;               // kAggregate: without(...) instead of by(...)
  std::vector<std::string> grouping;  // kAggregate labels; kBinary on/ignoring labels
  BinaryOp binary = BinaryOp::kAdd;
  bool return_bool = false;  // comparison with the bool modifier
  bool matching_on = false;  // kBinary: on(...) rather than ignoring(...)
};

using Expr = std::unique_ptr<ExprNode>;

// Parses `text`; errors read "position N: reason" (N counts bytes from 1).
Result<Expr> ParseExpr(std::string_view text);

// Every metric name the expression selects (for checking rules against the exporter's series).
std::vector<std::string> SelectedMetricNames(const ExprNode& expr);

struct VectorSample {
  Labels labels;
  double value = 0;
};

struct EvalValue {
  ValueType type = ValueType::kScalar;
  double scalar = 0;
  std::vector<VectorSample> vector;
};

struct EvalOptions {
  int64_t lookback_ms = int64_t{5} * 60 * 1000;  // Prometheus' default lookback delta
};

// Results of the subexpressions that several rules have in common (the same selector, function
// or aggregation, as parsed), kept for one evaluation round: the warning and the critical rule
// over one expression select and compute it once. A kept result is exactly what evaluating the
// subexpression again would give, as long as the series do not change: the owner calls Clear()
// when a round starts and whenever series were written (a recording rule's output). Results kept
// at another time are dropped by Evaluate. Not thread-safe: one evaluating thread.
namespace internal {
struct SharedResultsAccess;
}
class SharedResults {
 public:
  SharedResults() = default;
  // Finds the subexpressions that occur more than once in `exprs` (a null entry is skipped).
  explicit SharedResults(std::span<const ExprNode* const> exprs);

  void Clear();
  size_t shared_count() const { return slot_.size(); }

 private:
  friend struct internal::SharedResultsAccess;
  std::unordered_map<const ExprNode*, size_t> slot_;  // shared node -> index into values_
  std::vector<std::optional<Result<EvalValue>>> values_;
  int64_t t_ms_ = 0;
  int64_t lookback_ms_ = 0;
};

// A canonical text of `expr` (its structure, without positions or spacing): equal for
// subexpressions that evaluate identically.
std::string CanonicalText(const ExprNode& expr);

// Evaluates an instant query at `t_ms`. Errors are Prometheus' run-time errors (duplicate series
// in a one-to-one match, "vector cannot contain metrics with the same labelset"). `shared`, when
// given, supplies and keeps the results of shared subexpressions.
Result<EvalValue> Evaluate(const ExprNode& expr, const SeriesSource& source, int64_t t_ms,
                           const EvalOptions& options = {}, SharedResults* shared = nullptr);

// Prometheus' duration notation (1h30m, 5m, 90s, 1d, 1w, 1y, 500ms) in milliseconds.
Result<int64_t> ParseDuration(std::string_view text);

}  // namespace xpuperf::alerts

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
#include <string>
#include <string_view>
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
  int64_t lookback_ms = 5 * 60 * 1000;  // Prometheus' default lookback delta
};

// Evaluates an instant query at `t_ms`. Errors are Prometheus' run-time errors (duplicate series
// in a one-to-one match, "vector cannot contain metrics with the same labelset").
Result<EvalValue> Evaluate(const ExprNode& expr, const SeriesSource& source, int64_t t_ms,
                           const EvalOptions& options = {});

// Prometheus' duration notation (1h30m, 5m, 90s, 1d, 1w, 1y, 500ms) in milliseconds.
Result<int64_t> ParseDuration(std::string_view text);

}  // namespace xpuperf::alerts

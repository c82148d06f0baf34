// Instant-query evaluation of the subset, following Prometheus 2.42's engine: lookback for
// instant selectors, closed ranges [t - range, t], staleness markers, dropped metric names for
// functions and arithmetic, one-to-one vector matching and its errors.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "promql_functions.h"
#include "promql_shared.h"
#include "xpuperf/alerts/promql.h"

namespace xpuperf::alerts {
namespace {

Labels DropName(const Labels& labels) { return labels.Drop({}, /*drop_metric_name=*/true); }

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kGt || op == BinaryOp::kLt ||
         op == BinaryOp::kGe || op == BinaryOp::kLe;
}

// Arithmetic result, or for comparisons whether the comparison holds (value = lhs).
double ApplyArithmetic(BinaryOp op, double lhs, double rhs) {
  switch (op) {
    case BinaryOp::kAdd:
      return lhs + rhs;
    case BinaryOp::kSub:
      return lhs - rhs;
    case BinaryOp::kMul:
      return lhs * rhs;
    case BinaryOp::kDiv:
      return lhs / rhs;
    default:
      return NAN;
  }
}

bool Compare(BinaryOp op, double lhs, double rhs) {
  switch (op) {
    case BinaryOp::kEq:
      return lhs == rhs;
    case BinaryOp::kNe:
      return lhs != rhs;
    case BinaryOp::kGt:
      return lhs > rhs;
    case BinaryOp::kLt:
      return lhs < rhs;
    case BinaryOp::kGe:
      return lhs >= rhs;
    case BinaryOp::kLe:
      return lhs <= rhs;
    default:
      return false;
  }
}

class Evaluator {
 public:
  Evaluator(const SeriesSource& source, int64_t t_ms, const EvalOptions& options,
            SharedResults* shared)
      : source_(source), t_ms_(t_ms), options_(options), shared_(shared) {}

  Result<EvalValue> Eval(const ExprNode& node) {
    if (shared_ == nullptr) return EvalNode(node);
    using internal::SharedResultsAccess;
    const std::optional<size_t> slot =
        SharedResultsAccess::Slot(*shared_, node, t_ms_, options_.lookback_ms);
    if (!slot) return EvalNode(node);
    if (const auto& kept = SharedResultsAccess::Value(*shared_, *slot)) return *kept;
    Result<EvalValue> value = EvalNode(node);
    SharedResultsAccess::Keep(*shared_, *slot, value);
    return value;
  }

 private:
  Result<EvalValue> EvalNode(const ExprNode& node) {
    switch (node.kind) {
      case NodeKind::kNumber:
        return Scalar(node.number);
      case NodeKind::kVectorSelector:
        return SelectInstant(node);
      case NodeKind::kMatrixSelector:
        return MakeError(ErrorCode::kInternal, "a range vector outside a function");
      case NodeKind::kCall:
        return EvalCall(node);
      case NodeKind::kAggregate:
        return EvalAggregate(node);
      case NodeKind::kBinary:
        return EvalBinary(node);
    }
    return MakeError(ErrorCode::kInternal, "unknown expression node");
  }

  static EvalValue Scalar(double v) {
    EvalValue value;
    value.type = ValueType::kScalar;
    value.scalar = v;
    return value;
  }
  static EvalValue Vector(std::vector<VectorSample> samples) {
    EvalValue value;
    value.type = ValueType::kInstantVector;
    value.vector = std::move(samples);
    return value;
  }

  EvalValue SelectInstant(const ExprNode& node) {
    std::vector<VectorSample> out;
    source_.Select(node.matchers, t_ms_ - options_.lookback_ms, t_ms_,
                   [&](const Labels& labels, std::span<const Point> points) {
                     const Point& last = points.back();
                     if (IsStaleNaN(last.value)) return;  // the series ended before t
                     out.push_back({labels, last.value});
                   });
    return Vector(std::move(out));
  }

  // Calls `visit` per series with its non-stale points in [t - range, t].
  template <typename Visit>
  void SelectRange(const ExprNode& node, Visit&& visit) {
    std::vector<Point> kept;
    source_.Select(node.matchers, t_ms_ - node.range_ms, t_ms_,
                   [&](const Labels& labels, std::span<const Point> points) {
                     // Copy only when staleness markers must be left out (rare).
                     if (std::none_of(points.begin(), points.end(),
                                      [](const Point& p) { return IsStaleNaN(p.value); })) {
                       visit(labels, points);
                       return;
                     }
                     kept.clear();
                     for (const Point& p : points) {
                       if (!IsStaleNaN(p.value)) kept.push_back(p);
                     }
                     if (!kept.empty()) visit(labels, std::span<const Point>(kept));
                   });
  }

  Result<EvalValue> EvalCall(const ExprNode& node) {
    const std::string& f = node.function;
    std::vector<VectorSample> out;
    if (f == "rate" || f == "increase" || f == "delta") {
      const ExprNode& range = *node.args[0];
      SelectRange(range, [&](const Labels& labels, std::span<const Point> points) {
        double value = 0;
        if (internal::ExtrapolatedRate(points, t_ms_ - range.range_ms, t_ms_, f != "delta",
                                       f == "rate", value)) {
          out.push_back({DropName(labels), value});
        }
      });
      return Vector(std::move(out));
    }
    if (f == "quantile_over_time") {
      XPUPERF_ASSIGN_OR_RETURN(EvalValue q, Eval(*node.args[0]));
      SelectRange(*node.args[1], [&](const Labels& labels, std::span<const Point> points) {
        std::vector<double> values;
        for (const Point& p : points) values.push_back(p.value);
        out.push_back({DropName(labels), internal::Quantile(q.scalar, std::move(values))});
      });
      return Vector(std::move(out));
    }
    if (f.ends_with("_over_time")) {
      SelectRange(*node.args[0], [&](const Labels& labels, std::span<const Point> points) {
        double value = 0;
        if (internal::OverTime(f, points, value)) {
          // Prometheus keeps the metric name for last_over_time only.
          out.push_back({f == "last_over_time" ? labels : DropName(labels), value});
        }
      });
      return Vector(std::move(out));
    }
    if (f == "histogram_quantile") return HistogramQuantile(node);
    if (f == "absent") return Absent(node);
    if (f == "vector") {
      XPUPERF_ASSIGN_OR_RETURN(EvalValue s, Eval(*node.args[0]));
      out.push_back({Labels{}, s.scalar});
      return Vector(std::move(out));
    }
    return MakeError(ErrorCode::kInternal, "function " + f + " has no evaluator");
  }

  Result<EvalValue> HistogramQuantile(const ExprNode& node) {
    XPUPERF_ASSIGN_OR_RETURN(EvalValue q, Eval(*node.args[0]));
    XPUPERF_ASSIGN_OR_RETURN(EvalValue in, Eval(*node.args[1]));
    struct Group {
      Labels labels;
      std::vector<internal::Bucket> buckets;
    };
    std::map<std::string, Group> groups;
    static const std::vector<std::string> kLe = {"le"};
    for (const VectorSample& s : in.vector) {
      const std::string_view le = s.labels.Get("le");
      double bound = 0;
      if (!ParseFloatLikeGo(le, bound)) continue;  // series without a valid `le` are ignored
      Labels group_labels = s.labels.Drop(kLe, /*drop_metric_name=*/true);
      Group& group = groups[group_labels.Key()];
      group.labels = std::move(group_labels);
      group.buckets.push_back({bound, s.value});
    }
    std::vector<VectorSample> out;
    out.reserve(groups.size());
    for (auto& [key, group] : groups) {
      out.push_back({group.labels, internal::BucketQuantile(q.scalar, std::move(group.buckets))});
    }
    return Vector(std::move(out));
  }

  // strconv.ParseFloat's accepted forms for bucket bounds: decimals, exponents, +Inf/-Inf/NaN.
  static bool ParseFloatLikeGo(std::string_view text, double& out) {
    if (text.empty()) return false;
    std::string lower{text};
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "+inf" || lower == "inf" || lower == "infinity" || lower == "+infinity") {
      out = INFINITY;
      return true;
    }
    if (lower == "-inf" || lower == "-infinity") {
      out = -INFINITY;
      return true;
    }
    if (lower == "nan") {
      out = NAN;
      return true;
    }
    const char* first = text.data() + (text[0] == '+' ? 1 : 0);
    auto r = std::from_chars(first, text.data() + text.size(), out);
    return r.ec == std::errc() && r.ptr == text.data() + text.size();
  }

  Result<EvalValue> Absent(const ExprNode& node) {
    XPUPERF_ASSIGN_OR_RETURN(EvalValue in, Eval(*node.args[0]));
    if (!in.vector.empty()) return Vector({});
    Labels labels;
    const ExprNode& arg = *node.args[0];
    if (arg.kind == NodeKind::kVectorSelector) {
      std::map<std::string, int> seen;
      for (const LabelMatcher& m : arg.matchers) {
        if (m.name == kMetricNameLabel) continue;
        if (m.op == LabelMatcher::Op::kEqual && ++seen[m.name] == 1) {
          labels.Set(m.name, m.value);
        } else if (m.op == LabelMatcher::Op::kEqual) {
          labels.Remove(m.name);  // the same label twice: Prometheus leaves it out
        }
      }
    }
    return Vector({{labels, 1}});
  }

  Result<EvalValue> EvalAggregate(const ExprNode& node) {
    XPUPERF_ASSIGN_OR_RETURN(EvalValue in, Eval(*node.args[0]));
    struct Group {
      Labels labels;
      double value = 0;
      double count = 0;
    };
    std::unordered_map<std::string, Group> groups;
    std::vector<std::string> order;
    for (const VectorSample& s : in.vector) {
      Labels key_labels =
          node.without ? s.labels.Drop(node.grouping, true) : s.labels.Keep(node.grouping);
      std::string key = key_labels.Key();
      auto [it, inserted] = groups.try_emplace(key);
      Group& g = it->second;
      if (inserted) {
        order.push_back(key);
        g.labels = std::move(key_labels);
        g.value = node.aggregate == AggregateOp::kCount ? 1 : s.value;
        g.count = 1;
        continue;
      }
      g.count++;
      switch (node.aggregate) {
        case AggregateOp::kSum:
          g.value += s.value;
          break;
        case AggregateOp::kCount:
          g.value = g.count;
          break;
        case AggregateOp::kMax:
          if (g.value < s.value || std::isnan(g.value)) g.value = s.value;
          break;
        case AggregateOp::kMin:
          if (g.value > s.value || std::isnan(g.value)) g.value = s.value;
          break;
        case AggregateOp::kAvg:
          if (std::isinf(g.value)) {
            if (std::isinf(s.value) && (g.value > 0) == (s.value > 0)) break;
            if (!std::isinf(s.value) && !std::isnan(s.value)) break;
          }
          g.value += s.value / g.count - g.value / g.count;
          break;
      }
    }
    std::vector<VectorSample> out;
    out.reserve(order.size());
    for (const std::string& key : order) {
      Group& g = groups[key];
      out.push_back({std::move(g.labels), g.value});
    }
    return Vector(std::move(out));
  }

  Result<EvalValue> EvalBinary(const ExprNode& node) {
    XPUPERF_ASSIGN_OR_RETURN(EvalValue lhs, Eval(*node.args[0]));
    XPUPERF_ASSIGN_OR_RETURN(EvalValue rhs, Eval(*node.args[1]));
    const BinaryOp op = node.binary;
    const bool comparison = IsComparison(op);
    if (lhs.type == ValueType::kScalar && rhs.type == ValueType::kScalar) {
      if (comparison) return Scalar(Compare(op, lhs.scalar, rhs.scalar) ? 1 : 0);
      return Scalar(ApplyArithmetic(op, lhs.scalar, rhs.scalar));
    }
    if (lhs.type == ValueType::kScalar || rhs.type == ValueType::kScalar) {
      const bool scalar_left = lhs.type == ValueType::kScalar;
      EvalValue& vector = scalar_left ? rhs : lhs;
      const double scalar = scalar_left ? lhs.scalar : rhs.scalar;
      std::vector<VectorSample> out;
      for (VectorSample& s : vector.vector) {
        const double l = scalar_left ? scalar : s.value;
        const double r = scalar_left ? s.value : scalar;
        if (comparison) {
          const bool holds = Compare(op, l, r);
          if (node.return_bool) {
            out.push_back({DropName(s.labels), holds ? 1.0 : 0.0});
          } else if (holds) {
            out.push_back({std::move(s.labels), s.value});  // the vector's value, either side
          }
        } else {
          out.push_back({DropName(s.labels), ApplyArithmetic(op, l, r)});
        }
      }
      return Vector(std::move(out));
    }
    if (op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kUnless) {
      return SetOperation(node, std::move(lhs.vector), std::move(rhs.vector));
    }
    return VectorMatch(node, lhs.vector, rhs.vector);
  }

  std::string Signature(const ExprNode& node, const Labels& labels) const {
    return node.matching_on ? labels.Keep(node.grouping).Key()
                            : labels.Drop(node.grouping, /*drop_metric_name=*/true).Key();
  }

  EvalValue SetOperation(const ExprNode& node, std::vector<VectorSample> lhs,
                         std::vector<VectorSample> rhs) {
    std::vector<VectorSample> out;
    if (node.binary == BinaryOp::kOr) {
      std::unordered_set<std::string> left;
      for (VectorSample& s : lhs) {
        left.insert(Signature(node, s.labels));
        out.push_back(std::move(s));
      }
      for (VectorSample& s : rhs) {
        if (!left.contains(Signature(node, s.labels))) out.push_back(std::move(s));
      }
      return Vector(std::move(out));
    }
    std::unordered_set<std::string> right;
    for (const VectorSample& s : rhs) right.insert(Signature(node, s.labels));
    const bool want_match = node.binary == BinaryOp::kAnd;
    for (VectorSample& s : lhs) {
      if (right.contains(Signature(node, s.labels)) == want_match) out.push_back(std::move(s));
    }
    return Vector(std::move(out));
  }

  Result<EvalValue> VectorMatch(const ExprNode& node, const std::vector<VectorSample>& lhs,
                                const std::vector<VectorSample>& rhs) {
    std::unordered_map<std::string, const VectorSample*> right;
    for (const VectorSample& s : rhs) {
      auto [it, inserted] = right.try_emplace(Signature(node, s.labels), &s);
      if (!inserted) {
        return MakeError(ErrorCode::kInvalidArgument,
                         fmt::format("found duplicate series for the match group on the right "
                                     "hand-side of the operation: [{}, {}];many-to-many matching "
                                     "not allowed: matching labels must be unique on one side",
                                     it->second->labels.ToString(), s.labels.ToString()));
      }
    }
    const bool comparison = IsComparison(node.binary);
    const bool drop_name = !comparison || node.return_bool;
    std::unordered_set<std::string> matched;
    std::vector<VectorSample> out;
    for (const VectorSample& l : lhs) {
      const std::string sig = Signature(node, l.labels);
      auto it = right.find(sig);
      if (it == right.end()) continue;
      double value = l.value;
      if (comparison) {
        const bool holds = Compare(node.binary, l.value, it->second->value);
        if (node.return_bool) {
          value = holds ? 1 : 0;
        } else if (!holds) {
          continue;
        }
      } else {
        value = ApplyArithmetic(node.binary, l.value, it->second->value);
      }
      Labels labels = l.labels;
      if (drop_name) labels.Remove(kMetricNameLabel);
      labels = node.matching_on ? labels.Keep(node.grouping) : labels.Drop(node.grouping, false);
      if (!matched.insert(sig).second) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "multiple matches for labels: many-to-one matching must be explicit "
                         "(group_left/group_right)");
      }
      out.push_back({std::move(labels), value});
    }
    return Vector(std::move(out));
  }

  const SeriesSource& source_;
  int64_t t_ms_;
  EvalOptions options_;
  SharedResults* shared_;  // may be null
};

}  // namespace

Result<EvalValue> Evaluate(const ExprNode& expr, const SeriesSource& source, int64_t t_ms,
                           const EvalOptions& options, SharedResults* shared) {
  return Evaluator(source, t_ms, options, shared).Eval(expr);
}

}  // namespace xpuperf::alerts

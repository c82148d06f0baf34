// Recursive-descent parser of the PromQL subset, with Prometheus' operator precedence
// (or < and/unless < comparisons < + - < * /) and its type rules, checked at parse time.
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "xpuperf/alerts/promql.h"

namespace xpuperf::alerts {
namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || std::isdigit(static_cast<unsigned char>(c)); }

struct FunctionSignature {
  std::string_view name;
  std::vector<ValueType> args;
};

const std::vector<FunctionSignature>& SupportedFunctions() {
  using V = ValueType;
  static const std::vector<FunctionSignature> functions = {
      {"rate", {V::kRangeVector}},
      {"increase", {V::kRangeVector}},
      {"delta", {V::kRangeVector}},
      {"avg_over_time", {V::kRangeVector}},
      {"min_over_time", {V::kRangeVector}},
      {"max_over_time", {V::kRangeVector}},
      {"sum_over_time", {V::kRangeVector}},
      {"count_over_time", {V::kRangeVector}},
      {"last_over_time", {V::kRangeVector}},
      {"present_over_time", {V::kRangeVector}},
      {"quantile_over_time", {V::kScalar, V::kRangeVector}},
      {"histogram_quantile", {V::kScalar, V::kInstantVector}},
      {"absent", {V::kInstantVector}},
      {"vector", {V::kScalar}},
  };
  return functions;
}

std::optional<AggregateOp> AggregateByName(std::string_view name) {
  if (name == "sum") return AggregateOp::kSum;
  if (name == "min") return AggregateOp::kMin;
  if (name == "max") return AggregateOp::kMax;
  if (name == "avg") return AggregateOp::kAvg;
  if (name == "count") return AggregateOp::kCount;
  return std::nullopt;
}

bool IsUnsupportedAggregate(std::string_view name) {
  return name == "stddev" || name == "stdvar" || name == "topk" || name == "bottomk" ||
         name == "quantile" || name == "count_values" || name == "group";
}

std::string_view TypeName(ValueType type) {
  switch (type) {
    case ValueType::kScalar:
      return "scalar";
    case ValueType::kInstantVector:
      return "instant vector";
    case ValueType::kRangeVector:
      return "range vector";
  }
  return "?";
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<Expr> ParseAll() {
    XPUPERF_ASSIGN_OR_RETURN(Expr expr, ParseBinary(0));
    SkipSpace();
    if (pos_ < text_.size()) return Fail(pos_, fmt::format("unexpected '{}'", text_[pos_]));
    if (expr->type == ValueType::kRangeVector) {
      return Fail(expr->position, "a range vector cannot be the result of a rule expression");
    }
    return expr;
  }

 private:
  // Parentheses, calls, aggregations and unary signs recurse; a bound keeps hostile input from
  // overflowing the stack (real rules nest a handful of levels).
  static constexpr int kMaxNesting = 256;
  struct NestingGuard {
    explicit NestingGuard(int& depth) : depth(depth) { ++depth; }
    ~NestingGuard() { --depth; }
    int& depth;
  };
  static std::string TooDeep() {
    return fmt::format(
        "expression nested deeper than {} levels (parentheses, calls, aggregations and signs)",
        kMaxNesting);
  }

  Error Fail(size_t at, std::string reason) const {
    return MakeError(ErrorCode::kParse, fmt::format("position {}: {}", at + 1, reason));
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else if (text_[pos_] == '#') {  // PromQL comments run to the end of the line
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  bool Consume(std::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  std::string_view PeekWord() {
    SkipSpace();
    size_t end = pos_;
    while (end < text_.size() && (IsNameChar(text_[end]) || text_[end] == ':')) ++end;
    return text_.substr(pos_, end - pos_);
  }

  bool ConsumeKeyword(std::string_view word) {
    if (PeekWord() != word) return false;
    pos_ += word.size();
    return true;
  }

  // The binary operator at the cursor, its precedence and its length; nullopt when none.
  struct OperatorToken {
    BinaryOp op;
    int precedence;
    size_t length;
  };
  std::optional<OperatorToken> PeekOperator() {
    SkipSpace();
    const std::string_view rest = text_.substr(pos_);
    auto starts = [&](std::string_view t) { return rest.substr(0, t.size()) == t; };
    const std::string_view word = PeekWord();
    if (word == "or") return OperatorToken{BinaryOp::kOr, 1, 2};
    if (word == "and") return OperatorToken{BinaryOp::kAnd, 2, 3};
    if (word == "unless") return OperatorToken{BinaryOp::kUnless, 2, 6};
    if (starts("==")) return OperatorToken{BinaryOp::kEq, 3, 2};
    if (starts("!=")) return OperatorToken{BinaryOp::kNe, 3, 2};
    if (starts(">=")) return OperatorToken{BinaryOp::kGe, 3, 2};
    if (starts("<=")) return OperatorToken{BinaryOp::kLe, 3, 2};
    if (starts(">")) return OperatorToken{BinaryOp::kGt, 3, 1};
    if (starts("<")) return OperatorToken{BinaryOp::kLt, 3, 1};
    if (starts("+")) return OperatorToken{BinaryOp::kAdd, 4, 1};
    if (starts("-")) return OperatorToken{BinaryOp::kSub, 4, 1};
    if (starts("*")) return OperatorToken{BinaryOp::kMul, 5, 1};
    if (starts("/")) return OperatorToken{BinaryOp::kDiv, 5, 1};
    return std::nullopt;
  }

  static bool IsComparison(BinaryOp op) {
    return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kGt ||
           op == BinaryOp::kLt || op == BinaryOp::kGe || op == BinaryOp::kLe;
  }
  static bool IsSetOp(BinaryOp op) {
    return op == BinaryOp::kOr || op == BinaryOp::kAnd || op == BinaryOp::kUnless;
  }

  Result<Expr> ParseBinary(int min_precedence) {
    NestingGuard guard(depth_);
    if (depth_ > kMaxNesting) return Fail(pos_, TooDeep());
    XPUPERF_ASSIGN_OR_RETURN(Expr lhs, ParseUnary());
    while (true) {
      SkipSpace();
      if (pos_ < text_.size() && (text_[pos_] == '%' || text_[pos_] == '^')) {
        return Fail(
            pos_, fmt::format("operator '{}' is outside the supported PromQL subset", text_[pos_]));
      }
      if (PeekWord() == "atan2") return Fail(pos_, "operator atan2 is outside the subset");
      std::optional<OperatorToken> token = PeekOperator();
      if (!token || token->precedence < min_precedence) break;
      const size_t op_position = pos_;
      pos_ += token->length;
      auto node = std::make_unique<ExprNode>();
      node->kind = NodeKind::kBinary;
      node->binary = token->op;
      node->position = op_position;
      if (ConsumeKeyword("bool")) {
        if (!IsComparison(token->op)) {
          return Fail(op_position, "bool modifier can only be used on comparison operators");
        }
        node->return_bool = true;
      }
      const bool on = PeekWord() == "on";
      if (on || PeekWord() == "ignoring") {
        const size_t at = pos_;
        pos_ += on ? 2 : 8;
        node->matching_on = on;
        XPUPERF_ASSIGN_OR_RETURN(node->grouping, ParseLabelList());
        if (on) node->matching_on = true;
        (void)at;
      }
      const std::string_view group = PeekWord();
      if (group == "group_left" || group == "group_right") {
        return Fail(pos_, fmt::format("{} (many-to-one matching) is outside the supported "
                                      "PromQL subset",
                                      group));
      }
      // Left-associative: the right operand binds tighter.
      XPUPERF_ASSIGN_OR_RETURN(Expr rhs, ParseBinary(token->precedence + 1));
      XPUPERF_RETURN_IF_ERROR(CheckBinary(*node, *lhs, *rhs));
      node->args.push_back(std::move(lhs));
      node->args.push_back(std::move(rhs));
      lhs = std::move(node);
    }
    return lhs;
  }

  Status CheckBinary(ExprNode& node, const ExprNode& lhs, const ExprNode& rhs) {
    if (lhs.type == ValueType::kRangeVector || rhs.type == ValueType::kRangeVector) {
      return Fail(node.position,
                  "binary expression must contain only scalar and instant "
                  "vector types");
    }
    const bool vectors =
        lhs.type == ValueType::kInstantVector && rhs.type == ValueType::kInstantVector;
    if (IsSetOp(node.binary) && !vectors) {
      return Fail(node.position, "set operator not allowed in binary scalar expression");
    }
    if (IsComparison(node.binary) && !node.return_bool && lhs.type == ValueType::kScalar &&
        rhs.type == ValueType::kScalar) {
      return Fail(node.position, "comparisons between scalars must use BOOL modifier");
    }
    if ((node.matching_on || !node.grouping.empty()) && !vectors) {
      return Fail(node.position, "vector matching only allowed between instant vectors");
    }
    node.type = (lhs.type == ValueType::kInstantVector || rhs.type == ValueType::kInstantVector)
                    ? ValueType::kInstantVector
                    : ValueType::kScalar;
    return Status::Ok();
  }

  Result<Expr> ParseUnary() {
    SkipSpace();
    const size_t at = pos_;
    if (Consume("-") || Consume("+")) {
      // A sign is one level; parentheses, calls and aggregations are one each (ParseBinary).
      NestingGuard guard(depth_);
      if (depth_ > kMaxNesting) return Fail(at, TooDeep());
      const bool negative = text_[at] == '-';
      XPUPERF_ASSIGN_OR_RETURN(Expr operand, ParseUnary());
      if (operand->kind != NodeKind::kNumber) {
        return Fail(at, "unary minus is supported on number literals only");
      }
      if (negative) operand->number = -operand->number;
      operand->position = at;
      return operand;
    }
    return ParsePrimary();
  }

  Result<Expr> ParsePrimary() {
    SkipSpace();
    const size_t at = pos_;
    if (pos_ >= text_.size()) return Fail(pos_, "unexpected end of expression");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      XPUPERF_ASSIGN_OR_RETURN(Expr inner, ParseBinary(0));
      if (!Consume(")")) return Fail(pos_, "expected ')'");
      return CheckSuffix(std::move(inner));
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return ParseNumber();
    if (c == '{') return ParseSelector(at, "");
    if (c == '"' || c == '\'' || c == '`')
      return Fail(at, "string literals are outside the subset");
    if (IsNameStart(c) || c == ':') {
      std::string word{PeekWord()};
      if (word == "Inf" || word == "inf" || word == "NaN" || word == "nan") return ParseNumber();
      pos_ += word.size();
      if (auto op = AggregateByName(word)) return ParseAggregate(at, *op);
      if (IsUnsupportedAggregate(word)) {
        return Fail(at, fmt::format("aggregation {} is outside the supported PromQL subset", word));
      }
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '(') return ParseCall(at, word);
      if (word == "offset" || word == "by" || word == "without" || word == "bool") {
        return Fail(at, fmt::format("unexpected keyword '{}'", word));
      }
      return ParseSelector(at, word);
    }
    return Fail(at, fmt::format("unexpected '{}'", c));
  }

  // Refuses what may follow a selector or parenthesis in full PromQL but not in the subset.
  Result<Expr> CheckSuffix(Expr expr) {
    SkipSpace();
    if (PeekWord() == "offset") return Fail(pos_, "offset modifier is outside the subset");
    if (pos_ < text_.size() && text_[pos_] == '@') {
      return Fail(pos_, "@ modifier is outside the subset");
    }
    if (pos_ < text_.size() && text_[pos_] == '[') {
      if (expr->kind != NodeKind::kVectorSelector) {
        return Fail(pos_, "subqueries are outside the subset (ranges apply to selectors only)");
      }
    }
    return expr;
  }

  Result<Expr> ParseNumber() {
    const size_t at = pos_;
    size_t end = pos_;
    while (end < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '.' ||
            ((text_[end] == '+' || text_[end] == '-') && end > pos_ &&
             (text_[end - 1] == 'e' || text_[end - 1] == 'E')))) {
      ++end;
    }
    std::string token{text_.substr(pos_, end - pos_)};
    auto node = std::make_unique<ExprNode>();
    node->kind = NodeKind::kNumber;
    node->type = ValueType::kScalar;
    node->position = at;
    std::string lower = token;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "inf") {
      node->number = INFINITY;
    } else if (lower == "nan") {
      node->number = NAN;
    } else {
      const char* first = token.data();
      const char* last = token.data() + token.size();
      std::from_chars_result r{};
      if (lower.starts_with("0x")) {
        uint64_t v = 0;
        r = std::from_chars(first + 2, last, v, 16);
        node->number = static_cast<double>(v);
      } else {
        r = std::from_chars(first, last, node->number);
      }
      if (r.ec != std::errc() || r.ptr != last) {
        return Fail(at, fmt::format("bad number or duration syntax \"{}\"", token));
      }
    }
    pos_ = end;
    return node;
  }

  Result<std::string> ParseString() {
    SkipSpace();
    const size_t at = pos_;
    if (pos_ >= text_.size()) return Fail(at, "expected a string");
    const char quote = text_[pos_];
    if (quote != '"' && quote != '\'' && quote != '`') return Fail(at, "expected a string");
    ++pos_;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char ch = text_[pos_++];
      if (ch == '\\' && quote != '`') {
        if (pos_ >= text_.size()) break;
        const char escaped = text_[pos_++];
        switch (escaped) {
          case 'n':
            ch = '\n';
            break;
          case 't':
            ch = '\t';
            break;
          case '\\':
          case '"':
          case '\'':
            ch = escaped;
            break;
          default:
            // Regex escapes such as \d or \. are passed through to the regex as written.
            value += '\\';
            ch = escaped;
        }
      }
      value += ch;
    }
    if (pos_ >= text_.size()) return Fail(at, "unterminated string");
    ++pos_;
    return value;
  }

  Result<std::vector<std::string>> ParseLabelList() {
    if (!Consume("(")) return Fail(pos_, "expected '(' before the label list");
    std::vector<std::string> names;
    while (!Consume(")")) {
      const std::string_view word = PeekWord();
      if (word.empty() || !IsNameStart(word[0])) return Fail(pos_, "expected a label name");
      names.emplace_back(word);
      pos_ += word.size();
      if (!Consume(",")) {
        if (!Consume(")")) return Fail(pos_, "expected ',' or ')' in the label list");
        break;
      }
    }
    return names;
  }

  Result<Expr> ParseSelector(size_t at, const std::string& name) {
    auto node = std::make_unique<ExprNode>();
    node->kind = NodeKind::kVectorSelector;
    node->type = ValueType::kInstantVector;
    node->position = at;
    node->metric_name = name;
    if (!name.empty()) {
      XPUPERF_ASSIGN_OR_RETURN(LabelMatcher m, LabelMatcher::Make(std::string(kMetricNameLabel),
                                                                  LabelMatcher::Op::kEqual, name));
      node->matchers.push_back(std::move(m));
    }
    if (Consume("{")) {
      while (!Consume("}")) {
        const size_t label_at = pos_;
        const std::string_view word = PeekWord();
        if (word.empty() || !IsNameStart(word[0])) return Fail(pos_, "expected a label name");
        std::string label{word};
        pos_ += word.size();
        LabelMatcher::Op op;
        if (Consume("=~")) {
          op = LabelMatcher::Op::kRegexMatch;
        } else if (Consume("!~")) {
          op = LabelMatcher::Op::kRegexNoMatch;
        } else if (Consume("!=")) {
          op = LabelMatcher::Op::kNotEqual;
        } else if (Consume("=")) {
          op = LabelMatcher::Op::kEqual;
        } else {
          return Fail(pos_, "expected a label matching operator (=, !=, =~, !~)");
        }
        XPUPERF_ASSIGN_OR_RETURN(std::string value, ParseString());
        auto matcher = LabelMatcher::Make(label, op, value);
        if (!matcher.ok()) return Fail(label_at, matcher.error().message);
        if (label == kMetricNameLabel && op == LabelMatcher::Op::kEqual) {
          if (!node->metric_name.empty()) return Fail(label_at, "metric name given twice");
          node->metric_name = value;
        }
        node->matchers.push_back(std::move(*matcher));
        if (!Consume(",")) {
          if (!Consume("}")) return Fail(pos_, "expected ',' or '}' in the label matchers");
          break;
        }
      }
    }
    // Prometheus refuses selectors that could match every series.
    bool matches_nonempty = false;
    for (const LabelMatcher& m : node->matchers) matches_nonempty |= !m.Matches("");
    if (!matches_nonempty) {
      return Fail(at, "vector selector must contain at least one non-empty matcher");
    }
    SkipSpace();
    if (Consume("[")) {
      const size_t range_at = pos_;
      size_t end = text_.find(']', pos_);
      if (end == std::string_view::npos) return Fail(range_at, "unterminated range");
      std::string_view range = text_.substr(pos_, end - pos_);
      if (range.find(':') != std::string_view::npos) {
        return Fail(range_at, "subqueries are outside the supported PromQL subset");
      }
      auto ms = ParseDuration(range);
      if (!ms.ok()) return Fail(range_at, ms.error().message);
      if (*ms <= 0) return Fail(range_at, "range must be positive");
      pos_ = end + 1;
      node->kind = NodeKind::kMatrixSelector;
      node->type = ValueType::kRangeVector;
      node->range_ms = *ms;
    }
    return CheckSuffix(std::move(node));
  }

  Result<Expr> ParseCall(size_t at, const std::string& name) {
    const FunctionSignature* signature = nullptr;
    for (const FunctionSignature& f : SupportedFunctions()) {
      if (f.name == name) signature = &f;
    }
    if (signature == nullptr) {
      return Fail(at, fmt::format("function {}() is outside the supported PromQL subset", name));
    }
    Consume("(");
    auto node = std::make_unique<ExprNode>();
    node->kind = NodeKind::kCall;
    node->type = ValueType::kInstantVector;
    node->position = at;
    node->function = name;
    if (!Consume(")")) {
      while (true) {
        XPUPERF_ASSIGN_OR_RETURN(Expr arg, ParseBinary(0));
        node->args.push_back(std::move(arg));
        if (Consume(")")) break;
        if (!Consume(",")) return Fail(pos_, "expected ',' or ')' in the argument list");
      }
    }
    if (node->args.size() != signature->args.size()) {
      return Fail(at, fmt::format("{}() takes {} argument(s), got {}", name, signature->args.size(),
                                  node->args.size()));
    }
    for (size_t i = 0; i < node->args.size(); ++i) {
      if (node->args[i]->type != signature->args[i]) {
        return Fail(node->args[i]->position,
                    fmt::format("expected type {} in call to function \"{}\", got {}",
                                TypeName(signature->args[i]), name, TypeName(node->args[i]->type)));
      }
    }
    return CheckSuffix(std::move(node));
  }

  Result<Expr> ParseAggregate(size_t at, AggregateOp op) {
    auto node = std::make_unique<ExprNode>();
    node->kind = NodeKind::kAggregate;
    node->type = ValueType::kInstantVector;
    node->aggregate = op;
    node->position = at;
    auto parse_grouping = [&]() -> Status {
      const bool without = PeekWord() == "without";
      if (without || PeekWord() == "by") {
        pos_ += without ? 7 : 2;
        node->without = without;
        XPUPERF_ASSIGN_OR_RETURN(node->grouping, ParseLabelList());
      }
      return Status::Ok();
    };
    XPUPERF_RETURN_IF_ERROR(parse_grouping());
    if (!Consume("(")) return Fail(pos_, "expected '(' after the aggregation");
    XPUPERF_ASSIGN_OR_RETURN(Expr operand, ParseBinary(0));
    if (Consume(",")) return Fail(pos_, "this aggregation takes one argument");
    if (!Consume(")")) return Fail(pos_, "expected ')' after the aggregation's argument");
    if (operand->type != ValueType::kInstantVector) {
      return Fail(operand->position, fmt::format("expected type instant vector in aggregation "
                                                 "expression, got {}",
                                                 TypeName(operand->type)));
    }
    if (node->grouping.empty() && !node->without) XPUPERF_RETURN_IF_ERROR(parse_grouping());
    node->args.push_back(std::move(operand));
    return CheckSuffix(std::move(node));
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // ParseBinary/ParseUnary frames active
};

void CollectNames(const ExprNode& node, std::vector<std::string>& names) {
  if (!node.metric_name.empty()) names.push_back(node.metric_name);
  for (const auto& arg : node.args) CollectNames(*arg, names);
}

}  // namespace

Result<Expr> ParseExpr(std::string_view text) { return Parser(text).ParseAll(); }

std::vector<std::string> SelectedMetricNames(const ExprNode& expr) {
  std::vector<std::string> names;
  CollectNames(expr, names);
  return names;
}

Result<int64_t> ParseDuration(std::string_view text) {
  static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"ms", 1},       {"s", 1000},           {"m", 60000},           {"h", 3600000},
      {"d", 86400000}, {"w", 7 * 86400000LL}, {"y", 365 * 86400000LL}};
  if (text.empty()) return MakeError(ErrorCode::kParse, "empty duration");
  int64_t total = 0;
  size_t pos = 0;
  int last_unit = -1;
  while (pos < text.size()) {
    size_t digits_end = pos;
    while (digits_end < text.size() && std::isdigit(static_cast<unsigned char>(text[digits_end]))) {
      ++digits_end;
    }
    if (digits_end == pos) {
      return MakeError(ErrorCode::kParse, fmt::format("bad duration \"{}\"", text));
    }
    int64_t amount = 0;
    if (std::from_chars(text.data() + pos, text.data() + digits_end, amount).ec != std::errc()) {
      return MakeError(ErrorCode::kParse, fmt::format("duration \"{}\" out of range", text));
    }
    int unit = -1;
    // "ms" before "m"; units must come largest first, each at most once.
    for (int i = 0; i < 7; ++i) {
      if (text.substr(digits_end, kUnits[i].first.size()) == kUnits[i].first &&
          (unit < 0 || kUnits[i].first.size() > kUnits[unit].first.size())) {
        unit = i;
      }
    }
    if (unit < 0) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("bad duration \"{}\" (units: ms s m h d w y)", text));
    }
    if (last_unit >= 0 && kUnits[unit].second >= kUnits[last_unit].second) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("bad duration \"{}\" (units out of order)", text));
    }
    last_unit = unit;
    int64_t part = 0;
    if (__builtin_mul_overflow(amount, kUnits[unit].second, &part) ||
        __builtin_add_overflow(total, part, &total)) {
      return MakeError(ErrorCode::kParse, fmt::format("duration \"{}\" out of range", text));
    }
    pos = digits_end + kUnits[unit].first.size();
  }
  // Prometheus holds durations in Go's time.Duration (int64 nanoseconds, ~292 years): longer
  // ones are "out of range" there, so here too.
  constexpr int64_t kMaxDurationMs = std::numeric_limits<int64_t>::max() / 1'000'000;
  if (total > kMaxDurationMs) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("duration \"{}\" out of range (at most 292 years)", text));
  }
  return total;
}

}  // namespace xpuperf::alerts

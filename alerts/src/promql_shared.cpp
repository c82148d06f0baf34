// Shared subexpressions: canonical texts and the per-round results of the ones rules have in
// common.
#include "promql_shared.h"

#include <fmt/format.h>

#include <bit>
#include <map>

#include "xpuperf/alerts/promql.h"

namespace xpuperf::alerts {
namespace {

void AppendCanonical(const ExprNode& node, std::string& out) {
  out += fmt::format("({}:{}", static_cast<int>(node.kind), static_cast<int>(node.type));
  switch (node.kind) {
    case NodeKind::kNumber:
      // The bits, so that -0 and 0, and NaNs, stay apart.
      out += fmt::format(" n{:x}", std::bit_cast<uint64_t>(node.number));
      break;
    case NodeKind::kVectorSelector:
    case NodeKind::kMatrixSelector:
      // The matchers as written (their order does not change the result, but keeping it costs
      // nothing); the name matcher is among them. Lengths first, so no value can forge a split.
      for (const LabelMatcher& m : node.matchers) {
        out += fmt::format(" m{}:{}{}{}:{}", m.name.size(), m.name, static_cast<int>(m.op),
                           m.value.size(), m.value);
      }
      out += fmt::format(" r{}", node.range_ms);
      break;
    case NodeKind::kCall:
      out += fmt::format(" f{}:{}", node.function.size(), node.function);
      break;
    case NodeKind::kAggregate:
    case NodeKind::kBinary:
      out += fmt::format(" a{}w{}b{}B{}o{}", static_cast<int>(node.aggregate), node.without,
                         static_cast<int>(node.binary), node.return_bool, node.matching_on);
      for (const std::string& g : node.grouping) out += fmt::format(" g{}:{}", g.size(), g);
      break;
  }
  for (const auto& arg : node.args) AppendCanonical(*arg, out);
  out += ')';
}

void CollectNodes(const ExprNode& node, std::vector<const ExprNode*>& out) {
  out.push_back(&node);
  for (const auto& arg : node.args) CollectNodes(*arg, out);
}

}  // namespace

std::string CanonicalText(const ExprNode& expr) {
  std::string out;
  AppendCanonical(expr, out);
  return out;
}

SharedResults::SharedResults(std::span<const ExprNode* const> exprs) {
  std::map<std::string, std::vector<const ExprNode*>> by_text;
  for (const ExprNode* expr : exprs) {
    if (expr == nullptr) continue;
    std::vector<const ExprNode*> nodes;
    CollectNodes(*expr, nodes);
    for (const ExprNode* node : nodes) {
      // Numbers cost nothing to evaluate; a range selector is evaluated only inside its call.
      if (node->kind == NodeKind::kNumber || node->kind == NodeKind::kMatrixSelector) continue;
      by_text[CanonicalText(*node)].push_back(node);
    }
  }
  for (const auto& [text, nodes] : by_text) {
    if (nodes.size() < 2) continue;
    const size_t slot = values_.size();
    values_.emplace_back();
    for (const ExprNode* node : nodes) slot_.emplace(node, slot);
  }
}

void SharedResults::Clear() {
  for (auto& value : values_) value.reset();
}

namespace internal {

std::optional<size_t> SharedResultsAccess::Slot(SharedResults& shared, const ExprNode& node,
                                                int64_t t_ms, int64_t lookback_ms) {
  auto it = shared.slot_.find(&node);
  if (it == shared.slot_.end()) return std::nullopt;
  if (shared.t_ms_ != t_ms || shared.lookback_ms_ != lookback_ms) {
    shared.Clear();  // kept for another time: none of them holds now
    shared.t_ms_ = t_ms;
    shared.lookback_ms_ = lookback_ms;
  }
  return it->second;
}

const std::optional<Result<EvalValue>>& SharedResultsAccess::Value(const SharedResults& shared,
                                                                   size_t slot) {
  return shared.values_[slot];
}

void SharedResultsAccess::Keep(SharedResults& shared, size_t slot, Result<EvalValue> value) {
  shared.values_[slot] = std::move(value);
}

}  // namespace internal

}  // namespace xpuperf::alerts

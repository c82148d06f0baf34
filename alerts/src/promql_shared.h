// The evaluator's access to SharedResults (internal to the alerts component).
#pragma once

#include <optional>

#include "xpuperf/alerts/promql.h"

namespace xpuperf::alerts::internal {

struct SharedResultsAccess {
  // The slot of `node` when it is shared, else nullopt; results kept for another evaluation time
  // or lookback are dropped first.
  static std::optional<size_t> Slot(SharedResults& shared, const ExprNode& node, int64_t t_ms,
                                    int64_t lookback_ms);
  static const std::optional<Result<EvalValue>>& Value(const SharedResults& shared, size_t slot);
  static void Keep(SharedResults& shared, size_t slot, Result<EvalValue> value);
};

}  // namespace xpuperf::alerts::internal

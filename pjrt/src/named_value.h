// Internal: PJRT_NamedValue arrays to and from NamedValue.
#pragma once

#include <vector>

#include "pjrt_c_api.h"
#include "xpuperf/pjrt/plugin.h"

namespace xpuperf::pjrt {

std::vector<NamedValue> FromPjrt(const PJRT_NamedValue* values, size_t count);

// The PJRT view of `values`; points into them, so they must outlive the result.
std::vector<PJRT_NamedValue> ToPjrt(const std::vector<NamedValue>& values);

}  // namespace xpuperf::pjrt

// Memory errors counted by the kernel's EDAC drivers:
// /sys/devices/system/edac/mc/mcN/{ce_count, ue_count}. (The machinecheck sysfs directories hold
// only bank configuration, no counts, so EDAC is the counter source.)
#pragma once

#include <cstdint>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

struct EdacCounts {
  uint64_t corrected = 0;    // sum of ce_count over memory controllers, since boot
  uint64_t uncorrected = 0;  // sum of ue_count
  int controllers = 0;       // mcN directories read
};

// kUnsupported "no EDAC memory controller under <dir>" when there is none; the read error of the
// first unreadable counter otherwise.
Result<EdacCounts> ReadEdacCounts(const std::string& root);

}  // namespace xpuperf::cpu

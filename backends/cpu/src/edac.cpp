#include "edac.h"

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {

Result<EdacCounts> ReadEdacCounts(const std::string& root) {
  const std::string dir = JoinRoot(root, "/sys/devices/system/edac/mc");
  EdacCounts counts;
  Result<std::vector<std::string>> entries = ListDirectory(dir);
  if (entries.ok()) {
    for (const std::string& entry : *entries) {
      if (!ParseIndexedName(entry, "mc")) continue;
      const std::string controller = Concat(dir, "/", entry);
      XPUPERF_ASSIGN_OR_RETURN(uint64_t corrected, ReadUnsignedFile(controller + "/ce_count"));
      XPUPERF_ASSIGN_OR_RETURN(uint64_t uncorrected, ReadUnsignedFile(controller + "/ue_count"));
      counts.corrected += corrected;
      counts.uncorrected += uncorrected;
      ++counts.controllers;
    }
  }
  if (counts.controllers == 0) {
    return MakeError(ErrorCode::kUnsupported,
                     "no EDAC memory controller under /sys/devices/system/edac/mc");
  }
  return counts;
}

}  // namespace xpuperf::cpu

#include "xpuperf/core/pci_link.h"

#include <cstdlib>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf {

int PcieGeneration(const std::string& link_speed) {
  const double gts = std::strtod(link_speed.c_str(), nullptr);
  constexpr double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (int g = 0; g < 6; ++g)
    if (gts > kRates[g] * 0.9 && gts < kRates[g] * 1.1) return g + 1;
  return 0;
}

Result<PciLink> ReadPciLink(const std::string& device_dir) {
  PciLink link;
  XPUPERF_ASSIGN_OR_RETURN(link.speed, ReadTrimmedFile(device_dir + "/current_link_speed"));
  XPUPERF_ASSIGN_OR_RETURN(std::string width, ReadTrimmedFile(device_dir + "/current_link_width"));
  XPUPERF_ASSIGN_OR_RETURN(link.max_speed, ReadTrimmedFile(device_dir + "/max_link_speed"));
  XPUPERF_ASSIGN_OR_RETURN(std::string max_width, ReadTrimmedFile(device_dir + "/max_link_width"));
  link.generation = PcieGeneration(link.speed);
  link.max_generation = PcieGeneration(link.max_speed);
  link.width = std::atoi(width.c_str());
  link.max_width = std::atoi(max_width.c_str());
  return link;
}

}  // namespace xpuperf

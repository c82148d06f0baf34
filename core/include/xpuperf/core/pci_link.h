// A PCI function's link as sysfs gives it (current_link_speed/width, max_link_speed/width under
// /sys/bus/pci/devices/<address>): what `health` judges and the backends report as
// host_link_generation and host_link_width_lanes.
#pragma once

#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf {

struct PciLink {
  std::string speed, max_speed;            // as sysfs writes them: "16.0 GT/s PCIe"
  int generation = 0, max_generation = 0;  // 0 when the speed is not one PCIe defines
  int width = 0, max_width = 0;            // lanes
};

// The PCIe generation of a link speed ("2.5 GT/s" → 1 … "64.0 GT/s" → 6); 0 for any other.
int PcieGeneration(const std::string& link_speed);

// The link of the PCI function whose sysfs directory is `device_dir`; the first missing attribute's
// error (kNotFound) when the function has no link files.
Result<PciLink> ReadPciLink(const std::string& device_dir);

}  // namespace xpuperf

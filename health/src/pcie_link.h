// A PCI device's link against its maximum, from sysfs (current/max_link_speed and _width under
// ROOT/sys/bus/pci/devices/<address>): the same files for every vendor.
#pragma once

#include <string>

#include "verdict_rules.h"

namespace xpuperf::health {

Verdict PcieLinkVerdict(const std::string& bus_id, const DeviceReadings& readings,
                        const std::string& root);

}  // namespace xpuperf::health

#include "pcie_link.h"

#include <fmt/format.h>

#include <cstdlib>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/pci_link.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/health/kernel_log.h"

namespace xpuperf::health {

namespace {

// Busy now (duty cycle above 0): an idle link is slowed down on purpose.
bool Busy(const DeviceReadings& readings) {
  const Reading* duty = readings.Find(metrics::kDutyCycle);
  if (duty == nullptr || duty->state != ReadingState::kOk) return false;
  const Sample* s = duty->Overall();
  return s != nullptr && !s->is_distribution() && s->scalar() > 0;
}

// "; 3 PCIe replays since the driver loaded …" when the backend counts them (NVML field 94).
std::string ReplayText(const DeviceReadings& readings) {
  const Reading* errors = readings.Find(metrics::kErrors);
  if (errors == nullptr || errors->state != ReadingState::kOk) return {};
  for (const Sample& s : errors->samples) {
    if (s.is_distribution() || s.labels.Get(labels::kType) != "pcie_replay") continue;
    return fmt::format(
        "; {:g} PCIe replays since the driver loaded (retried by the link; their rate is "
        "xpuperf_errors_total{{type=\"pcie_replay\"}} in serve)",
        s.scalar());
  }
  return {};
}

}  // namespace

Verdict PcieLinkVerdict(const std::string& bus_id, const DeviceReadings& readings,
                        const std::string& root) {
  // sysfs names the function: "0000:3b:00.0".
  const std::string address = NormalizeBusId(bus_id) + ".0";
  const std::string dir = JoinRoot(root, "/sys/bus/pci/devices/" + address);
  auto link = ReadPciLink(dir);
  if (!link.ok()) {
    return Unknown(Subsystem::kPcie,
                   "no PCIe link attributes: " + link.error().message + ReplayText(readings), dir);
  }
  const int gen = link->generation, max_gen = link->max_generation;
  const int lanes = link->width, max_lanes = link->max_width;
  const std::string evidence = fmt::format("link gen{} x{} of gen{} x{} ({} of {})", gen, lanes,
                                           max_gen, max_lanes, link->speed, link->max_speed) +
                               ReplayText(readings);
  if (lanes > 0 && max_lanes > 0 && lanes < max_lanes) {
    return Finding(Subsystem::kPcie, Status::kWarn, "PCIE_LINK_WIDTH_DEGRADED", Action::kNone,
                   "the link trained to fewer lanes than it has: host transfers run slower; "
                   "reseat the device or check its riser at the next maintenance",
                   evidence, dir);
  }
  if (gen > 0 && max_gen > 0 && gen < max_gen) {
    if (Busy(readings)) {
      return Finding(Subsystem::kPcie, Status::kWarn, "PCIE_LINK_SPEED_DEGRADED", Action::kNone,
                     "the link runs below its maximum generation while the device is busy",
                     evidence, dir);
    }
    return Pass(Subsystem::kPcie, evidence + "; idle: links slow down when idle", dir);
  }
  return Pass(Subsystem::kPcie, evidence, dir);
}

}  // namespace xpuperf::health

#include "xpuperf/health/evaluate.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pcie_link.h"
#include "verdict_rules.h"
#include "xid_catalog.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::health {
namespace {

bool IsAccelerator(const Device& d) { return d.backend != "cpu"; }

// The verdicts of one device, one per subsystem: a second finding for a subsystem merges into the
// first, keeping the worse status (then the stronger action) and both pieces of evidence.
class DeviceVerdicts {
 public:
  explicit DeviceVerdicts(std::string device) : device_(std::move(device)) {}
  void Add(Verdict v) {
    v.device = device_;
    for (Verdict& existing : verdicts_) {
      if (existing.subsystem != v.subsystem) continue;
      const bool worse = StatusRank(v.status) > StatusRank(existing.status) ||
                         (v.status == existing.status && v.action > existing.action);
      std::string evidence = Join(existing.evidence, v.evidence);
      std::string source = existing.source == v.source ? v.source : Join(existing.source, v.source);
      if (worse) existing = std::move(v);
      existing.evidence = std::move(evidence);
      existing.source = std::move(source);
      return;
    }
    verdicts_.push_back(std::move(v));
  }
  std::vector<Verdict> Take() {
    std::stable_sort(verdicts_.begin(), verdicts_.end(),
                     [](const Verdict& a, const Verdict& b) { return a.subsystem < b.subsystem; });
    return std::move(verdicts_);
  }

 private:
  static std::string Join(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty() || a == b) return a;
    return a + "; " + b;
  }
  std::string device_;
  std::vector<Verdict> verdicts_;
};

// XIDs of the kernel log for one GPU: the meaning of each XID seen, with its count and the last
// record.
void AddXidVerdicts(const Device& d, const std::vector<KernelEvent>& events, DeviceVerdicts& out) {
  const std::string bus = NormalizeBusId(d.bus_id);
  std::map<int, std::pair<int, const KernelEvent*>> seen;  // xid → (count, last)
  for (const KernelEvent& e : events) {
    if (e.kind != KernelEventKind::kXid || e.bus_id != bus) continue;
    auto& [count, last] = seen[e.xid];
    ++count;
    last = &e;
  }
  if (seen.empty()) {
    out.Add(Pass(Subsystem::kDriver, "no XID in the kernel log since boot", "/dev/kmsg"));
    return;
  }
  // One finding per XID; DeviceVerdicts keeps the worst of a subsystem with every XID's evidence.
  for (const auto& [xid, count_last] : seen) {
    const XidMeaning m = MeaningOfXid(xid);
    out.Add(Finding(
        m.subsystem, m.status, std::string(m.code), m.action, std::string(m.summary),
        fmt::format("XID {} x{} (last: {})", xid, count_last.first, count_last.second->message),
        "kernel log (/dev/kmsg)"));
  }
}

// The CPU's machine checks and memory failures in the kernel log since boot.
void AddMachineCheckVerdicts(const Result<std::vector<KernelEvent>>& events, DeviceVerdicts& out) {
  constexpr std::string_view kSource = "kernel log (/dev/kmsg)";
  if (!events.ok()) {
    out.Add(Unknown(Subsystem::kProcessor, "machine checks not read: " + events.error().message,
                    "/dev/kmsg"));
    return;
  }
  int corrected = 0, uncorrected = 0, failures = 0;
  const KernelEvent* last_uncorrected = nullptr;
  const KernelEvent* last_failure = nullptr;
  for (const KernelEvent& e : *events) {
    if (e.kind == KernelEventKind::kCorrectedMachineCheck) ++corrected;
    if (e.kind == KernelEventKind::kMachineCheck) {
      ++uncorrected;
      last_uncorrected = &e;
    }
    if (e.kind == KernelEventKind::kMemoryFailure) {
      ++failures;
      last_failure = &e;
    }
  }
  if (failures > 0) {
    out.Add(Finding(
        Subsystem::kMemory, Status::kFail, "MEM_PAGE_OFFLINED", Action::kDrainNode,
        "the kernel took memory pages offline after uncorrectable errors: a DIMM to "
        "replace",
        fmt::format("{} memory failure records (last: {})", failures, last_failure->message),
        std::string(kSource)));
  }
  if (uncorrected > 0) {
    out.Add(Finding(
        Subsystem::kProcessor, Status::kFail, "CPU_MACHINE_CHECK", Action::kDrainNode,
        "the CPU reported hardware errors it did not correct (machine check): "
        "rasdaemon or mcelog decode them",
        fmt::format("{} machine-check records (last: {})", uncorrected, last_uncorrected->message),
        std::string(kSource)));
  } else if (corrected > 0) {
    out.Add(Finding(Subsystem::kProcessor, Status::kWarn, "CPU_MACHINE_CHECKS_CORRECTED",
                    Action::kNone,
                    "the CPU corrected hardware errors (machine check events logged): a part may "
                    "be wearing out; rasdaemon or mcelog say which",
                    fmt::format("{} \"Machine check events logged\" records", corrected),
                    std::string(kSource)));
  } else {
    out.Add(Pass(Subsystem::kProcessor, "no machine check in the kernel log since boot",
                 std::string(kSource)));
  }
}

std::vector<Verdict> DeviceHealth(const Device& d, const HealthInput& input,
                                  const HealthOptions& options) {
  DeviceVerdicts out(d.id);
  const DeviceReadings readings(input.readings, d.id);
  if (const std::string lost = readings.LostReason(); !lost.empty()) {
    out.Add(Finding(Subsystem::kDriver, Status::kFail, "DRIVER_DEVICE_LOST", Action::kResetDevice,
                    "the device stopped answering: reset it (reboot the node if the reset fails)",
                    lost, "backend " + d.backend));
    return out.Take();
  }
  out.Add(MemoryVerdict(readings));
  for (Verdict& v : RasBlockVerdicts(readings)) out.Add(std::move(v));
  out.Add(ThermalVerdict(readings, options.root, IsAccelerator(d)));
  if (!IsAccelerator(d)) AddMachineCheckVerdicts(input.kernel_events, out);
  if (IsAccelerator(d)) {
    out.Add(PowerVerdict(readings));
    if (!d.bus_id.empty()) out.Add(PcieLinkVerdict(d.bus_id, readings, options.root));
    out.Add(InterconnectVerdict(d, readings));
    out.Add(ClocksVerdict(d, readings));
    if (d.backend == "nvidia") {
      if (input.kernel_events.ok()) {
        AddXidVerdicts(d, *input.kernel_events, out);
      } else {
        out.Add(Unknown(Subsystem::kDriver, "XIDs not read: " + input.kernel_events.error().message,
                        "/dev/kmsg"));
      }
    } else if (auto cores = CoreErrorVerdict(readings)) {
      out.Add(std::move(*cores));
    } else {
      out.Add(Pass(Subsystem::kDriver, "the device answers its backend", "backend " + d.backend));
    }
  }
  return out.Take();
}

Verdict ExpectedDevices(const HealthInput& input, int expect) {
  std::vector<std::string> found;
  for (const Device& d : input.devices)
    if (IsAccelerator(d) && !d.is_partition()) found.push_back(d.id);
  std::string backends;
  for (const BackendStatus& b : input.backends) {
    if (b.name == "cpu") continue;
    backends += (backends.empty() ? "" : ", ") + b.name +
                (b.available ? " available" : " not available: " + b.reason);
  }
  const std::string evidence =
      fmt::format("{} of {} accelerators: {}{}", found.size(), expect,
                  found.empty() ? "none" : fmt::format("{}", fmt::join(found, ", ")),
                  backends.empty() ? "" : " (" + backends + ")");
  Verdict v =
      static_cast<int>(found.size()) >= expect
          ? Pass(Subsystem::kDriver, evidence, "--expect")
          : Finding(Subsystem::kDriver, Status::kFail, "DRIVER_DEVICE_MISSING", Action::kDrainNode,
                    "fewer accelerators than expected: one is missing from the bus or "
                    "its driver did not load",
                    evidence, "--expect");
  v.device = "node";
  return v;
}

}  // namespace

HealthReport EvaluateHealth(const HealthInput& input, const HealthOptions& options) {
  HealthReport report;
  if (options.expect) report.verdicts.push_back(ExpectedDevices(input, *options.expect));
  for (const Device& d : input.devices) {
    if (d.is_partition()) continue;  // a MIG device's health is its GPU's
    for (Verdict& v : DeviceHealth(d, input, options)) report.verdicts.push_back(std::move(v));
  }
  return report;
}

}  // namespace xpuperf::health

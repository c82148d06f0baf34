// The rules of docs/HEALTH.md on synthesized readings: each code from its evidence, the worst
// finding of a subsystem kept, and never a pass where nothing could be read.
#include "xpuperf/health/evaluate.h"

#include <gtest/gtest.h>

#include <optional>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::health {
namespace {

const std::string kTrees = XPUPERF_HEALTH_TREES;

Device Gpu(std::string id = "nvidia0", std::string bus = "00000000:3B:00.0") {
  Device d;
  d.backend = "nvidia";
  d.id = std::move(id);
  d.bus_id = std::move(bus);
  return d;
}

Device Cpu() {
  Device d;
  d.backend = "cpu";
  d.id = "cpu0";
  return d;
}

Reading Errors(const std::string& device, std::vector<std::pair<std::string, double>> counts) {
  Reading r;
  r.metric = metrics::kErrors;
  r.device = device;
  for (const auto& [type, value] : counts) {
    Sample s;
    s.labels.Set(labels::kDevice, device);
    s.labels.Set(labels::kType, type);
    s.value = value;
    r.samples.push_back(s);
  }
  return r;
}

Reading ClockEvents(const std::string& device, std::vector<std::pair<std::string, double>> active) {
  Reading r;
  r.metric = metrics::kClockEventActive;
  r.device = device;
  for (const auto& [reason, value] : active) {
    Sample s;
    s.labels.Set(labels::kDevice, device);
    s.labels.Set(labels::kReason, reason);
    s.value = value;
    r.samples.push_back(s);
  }
  return r;
}

// A copy: the reports of these tests are temporaries.
std::optional<Verdict> Find(const HealthReport& report, const std::string& device,
                            Subsystem subsystem) {
  for (const Verdict& v : report.verdicts)
    if (v.device == device && v.subsystem == subsystem) return v;
  return std::nullopt;
}

HealthReport Evaluate(HealthInput input, const std::string& tree = "gpu-xid79",
                      std::optional<int> expect = std::nullopt) {
  HealthOptions options;
  options.root = kTrees + "/" + tree;
  options.expect = expect;
  if (input.kernel_events.ok() && input.kernel_events->empty())
    input.kernel_events = ReadKernelLog(options.root);
  return EvaluateHealth(input, options);
}

TEST(HealthRulesTest, ARowRemapFailureAsksForAReplacement) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {Errors("nvidia0", {{"remapped_rows_failure", 1},
                                    {"remapped_rows_pending", 1},
                                    {"ecc_uncorrected_volatile", 2}}),
                 ClockEvents("nvidia0", {{"gpu_idle", 1}})};
  const HealthReport report = Evaluate(in, "gpu-x8");
  const std::optional<Verdict> memory = Find(report, "nvidia0", Subsystem::kMemory);
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ(memory->status, Status::kFail);
  EXPECT_EQ(memory->code, "MEM_ROW_REMAP_FAILURE");  // the worst of the three
  EXPECT_EQ(memory->action, Action::kReplaceDevice);
  EXPECT_EQ(memory->severity, Severity::kCritical);
  EXPECT_NE(memory->evidence.find("ecc_uncorrected_volatile=2"), std::string::npos);
  EXPECT_FALSE(report.Healthy());
  EXPECT_EQ(report.WorstAction(), Action::kReplaceDevice);
}

TEST(HealthRulesTest, PendingRemapsAndRetirementsWantAReset) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {Errors("nvidia0", {{"remapped_rows_pending", 1}, {"ecc_corrected_volatile", 7}})};
  const std::optional<Verdict> memory = Find(Evaluate(in), "nvidia0", Subsystem::kMemory);
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ(memory->status, Status::kWarn);
  EXPECT_EQ(memory->code, "MEM_ROW_REMAP_PENDING");
  EXPECT_EQ(memory->action, Action::kResetDevice);

  in.readings = {Errors("nvidia0", {{"retired_pages_sbe", 50}, {"retired_pages_dbe", 10}})};
  EXPECT_EQ(Find(Evaluate(in), "nvidia0", Subsystem::kMemory)->code, "MEM_RETIRED_PAGES_LIMIT");
  in.readings = {Errors("nvidia0", {{"retired_pages_sbe", 0}, {"retired_pages_dbe", 15}})};
  EXPECT_EQ(Find(Evaluate(in), "nvidia0", Subsystem::kMemory)->code,
            "MEM_RETIRED_PAGES_SOFT_LIMIT");
  in.readings = {
      Errors("nvidia0", {{"ecc_uncorrected_aggregate", 1}, {"ecc_uncorrected_volatile", 0}})};
  const std::optional<Verdict> history = Find(Evaluate(in), "nvidia0", Subsystem::kMemory);
  EXPECT_EQ(history->code, "MEM_UNCORRECTABLE_HISTORY");
  EXPECT_EQ(history->status, Status::kWarn);
}

TEST(HealthRulesTest, CleanCountersPassWithTheirEvidence) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {Errors("nvidia0", {{"ecc_corrected_volatile", 3}, {"remapped_rows_failure", 0}}),
                 ClockEvents("nvidia0", {{"sw_power_cap", 1}, {"hw_thermal_slowdown", 0}})};
  const HealthReport report = Evaluate(in);
  const std::optional<Verdict> memory = Find(report, "nvidia0", Subsystem::kMemory);
  EXPECT_EQ(memory->status, Status::kPass);
  EXPECT_EQ(memory->code, "OK");
  EXPECT_NE(memory->evidence.find("ecc_corrected_volatile=3"), std::string::npos);
  const std::optional<Verdict> power = Find(report, "nvidia0", Subsystem::kPower);
  EXPECT_EQ(power->status, Status::kPass);
  EXPECT_EQ(power->code, "POWER_CAPPED");
  EXPECT_EQ(Find(report, "nvidia0", Subsystem::kThermal)->status, Status::kPass);
  EXPECT_EQ(Find(report, "nvidia0", Subsystem::kPcie)->status, Status::kPass);
}

TEST(HealthRulesTest, NothingReadIsUnknownNeverAPass) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {
      Reading::Unsupported(metrics::kErrors, "nvidia0", "unsupported: no ECC field on this GPU"),
      Reading::Unsupported(metrics::kClockEventActive, "nvidia0",
                           "unsupported: nvmlDeviceGetCurrentClocksEventReasons")};
  // A root without a kernel log or PCIe links: those are unknown too.
  const HealthReport report = Evaluate(in, "no-such-tree");
  for (Subsystem s : {Subsystem::kPcie, Subsystem::kDriver, Subsystem::kMemory, Subsystem::kThermal,
                      Subsystem::kPower, Subsystem::kInterconnect, Subsystem::kClocks}) {
    const std::optional<Verdict> v = Find(report, "nvidia0", s);
    ASSERT_TRUE(v.has_value()) << SubsystemName(s);
    EXPECT_EQ(v->status, Status::kUnknown) << SubsystemName(s);
    EXPECT_FALSE(v->evidence.empty());
  }
  EXPECT_NE(Find(report, "nvidia0", Subsystem::kMemory)->evidence.find("no ECC field"),
            std::string::npos);
  EXPECT_TRUE(report.Healthy());  // unknown alone does not fail a node
  EXPECT_EQ(report.Overall(), Status::kUnknown);
}

TEST(HealthRulesTest, ThrottleReasonsJudgeThermalAndPower) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {
      ClockEvents("nvidia0", {{"hw_thermal_slowdown", 1}, {"hw_power_brake_slowdown", 1}})};
  const HealthReport report = Evaluate(in);
  EXPECT_EQ(Find(report, "nvidia0", Subsystem::kThermal)->code, "THERMAL_SLOWDOWN");
  EXPECT_EQ(Find(report, "nvidia0", Subsystem::kPower)->code, "POWER_BRAKE");
}

TEST(HealthRulesTest, AnXidInTheKernelLogIsJudgedForItsGpu) {
  HealthInput in;
  in.devices = {Gpu("nvidia0"), Gpu("nvidia1", "00000000:86:00.0")};
  const HealthReport report = Evaluate(in, "gpu-xid79");
  const std::optional<Verdict> driver = Find(report, "nvidia0", Subsystem::kDriver);
  ASSERT_TRUE(driver.has_value());
  EXPECT_EQ(driver->code, "XID_79_FALLEN_OFF_BUS");
  EXPECT_EQ(driver->action, Action::kDrainNode);
  EXPECT_NE(driver->evidence.find("XID 79 x1"), std::string::npos);
  EXPECT_EQ(Find(report, "nvidia1", Subsystem::kDriver)->status, Status::kPass);
  // The kernel log unreadable: the XID part is unknown, not a pass.
  in.kernel_events = MakeError(ErrorCode::kUnavailable, "/dev/kmsg: Operation not permitted");
  const std::optional<Verdict> unread = Find(Evaluate(in), "nvidia1", Subsystem::kDriver);
  EXPECT_EQ(unread->status, Status::kUnknown);
  EXPECT_NE(unread->evidence.find("Operation not permitted"), std::string::npos);
}

TEST(HealthRulesTest, ALostGpuAndAMissingOneFailTheNode) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {Reading::NoData(
      metrics::kErrors, "nvidia0",
      "no data: GPU lost (fell off the bus) (nvmlDeviceGetFieldValues returned GPU_IS_LOST)")};
  BackendStatus nvidia{"nvidia", true, ""}, tpu{"tpu", false, "no TPU chips under /sys"};
  in.backends = {nvidia, tpu};
  const HealthReport report = Evaluate(in, "gpu-x8", 2);
  const std::optional<Verdict> lost = Find(report, "nvidia0", Subsystem::kDriver);
  EXPECT_EQ(lost->code, "DRIVER_DEVICE_LOST");
  EXPECT_EQ(lost->action, Action::kResetDevice);
  const std::optional<Verdict> node = Find(report, "node", Subsystem::kDriver);
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->code, "DRIVER_DEVICE_MISSING");
  EXPECT_NE(node->evidence.find("1 of 2 accelerators: nvidia0"), std::string::npos);
  EXPECT_NE(node->evidence.find("tpu not available: no TPU chips"), std::string::npos);
  EXPECT_EQ(Find(Evaluate(in, "gpu-x8", 1), "node", Subsystem::kDriver)->status, Status::kPass);
}

TEST(HealthRulesTest, ADownTrainedLinkWarnsAndAnIdleSlowOneDoesNot) {
  HealthInput in;
  in.devices = {Gpu()};
  const std::optional<Verdict> pcie = Find(Evaluate(in, "gpu-x8"), "nvidia0", Subsystem::kPcie);
  ASSERT_TRUE(pcie.has_value());
  EXPECT_EQ(pcie->code, "PCIE_LINK_WIDTH_DEGRADED");
  EXPECT_NE(pcie->evidence.find("gen1 x8 of gen4 x16"), std::string::npos);
  // No link files for a device: unknown with the path.
  in.devices = {Gpu("nvidia0", "0000:99:00.0")};
  const std::optional<Verdict> missing = Find(Evaluate(in, "gpu-x8"), "nvidia0", Subsystem::kPcie);
  EXPECT_EQ(missing->status, Status::kUnknown);
  EXPECT_NE(missing->evidence.find("0000:99:00.0"), std::string::npos);
}

// An XID storm: 10,000 application faults (XID 13) and one fallen-off-the-bus (79) for the same
// GPU: one driver verdict, the worst XID's, with every XID counted in the evidence.
TEST(HealthRulesTest, AnXidStormIsOneVerdictWithItsCounts) {
  std::string log;
  for (int i = 0; i < 10000; ++i)
    log += "4,1" + std::to_string(i) +
           ",5000,-;NVRM: Xid (PCI:0000:3b:00): 13, pid=77, Graphics "
           "Exception\n";
  log += "3,99999,9000,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n";
  HealthInput in;
  in.devices = {Gpu()};
  in.kernel_events = ParseKernelLog(log);
  ASSERT_EQ(in.kernel_events->size(), 10001u);
  const std::optional<Verdict> driver = Find(Evaluate(in), "nvidia0", Subsystem::kDriver);
  ASSERT_TRUE(driver.has_value());
  EXPECT_EQ(driver->code, "XID_79_FALLEN_OFF_BUS");
  EXPECT_NE(driver->evidence.find("XID 13 x10000"), std::string::npos) << driver->evidence;
  EXPECT_NE(driver->evidence.find("XID 79 x1"), std::string::npos);
}

TEST(HealthRulesTest, MachineChecksOfTheKernelLog) {
  HealthInput in;
  in.devices = {Cpu()};
  KernelEvent corrected;
  corrected.kind = KernelEventKind::kCorrectedMachineCheck;
  corrected.message = "mce: [Hardware Error]: Machine check events logged";
  in.kernel_events = std::vector<KernelEvent>{corrected, corrected};
  HealthReport report = Evaluate(in);
  EXPECT_EQ(Find(report, "cpu0", Subsystem::kProcessor)->code, "CPU_MACHINE_CHECKS_CORRECTED");
  EXPECT_TRUE(report.Healthy());
  KernelEvent uncorrected = corrected;
  uncorrected.kind = KernelEventKind::kMachineCheck;
  uncorrected.message = "mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 4";
  KernelEvent failure = corrected;
  failure.kind = KernelEventKind::kMemoryFailure;
  failure.message = "Memory failure: 0x3f2a1: recovery action for dirty LRU page: Recovered";
  in.kernel_events = std::vector<KernelEvent>{corrected, uncorrected, failure};
  report = Evaluate(in);
  const std::optional<Verdict> cpu = Find(report, "cpu0", Subsystem::kProcessor);
  EXPECT_EQ(cpu->code, "CPU_MACHINE_CHECK");
  EXPECT_EQ(cpu->action, Action::kDrainNode);
  EXPECT_NE(cpu->evidence.find("Bank 4"), std::string::npos);
  EXPECT_EQ(Find(report, "cpu0", Subsystem::kMemory)->code, "MEM_PAGE_OFFLINED");
  // A GPU without a bus id is not given the CPU's records as XIDs.
  in.devices = {Gpu("nvidia0", "")};
  EXPECT_EQ(Find(Evaluate(in), "nvidia0", Subsystem::kDriver)->status, Status::kPass);
  // An unreadable log: unknown.
  in.devices = {Cpu()};
  in.kernel_events = MakeError(ErrorCode::kUnavailable, "/dev/kmsg: Operation not permitted");
  EXPECT_EQ(Find(Evaluate(in), "cpu0", Subsystem::kProcessor)->status, Status::kUnknown);
}

TEST(HealthRulesTest, HostMemoryAndCpuThrottling) {
  HealthInput in;
  in.devices = {Cpu()};
  in.readings = {Errors("cpu0", {{"ecc_corrected", 12}, {"ecc_uncorrected", 1}})};
  HealthReport report = Evaluate(in, "cpu-throttled");
  EXPECT_EQ(Find(report, "cpu0", Subsystem::kMemory)->code, "MEM_UNCORRECTABLE");
  EXPECT_EQ(Find(report, "cpu0", Subsystem::kMemory)->action, Action::kDrainNode);
  const std::optional<Verdict> thermal = Find(report, "cpu0", Subsystem::kThermal);
  EXPECT_EQ(thermal->code, "THERMAL_THROTTLED_SINCE_BOOT");
  EXPECT_NE(thermal->evidence.find("3 core"), std::string::npos);
  EXPECT_FALSE(Find(report, "cpu0", Subsystem::kPcie).has_value());  // not a PCI device
  // No counters (a VM): unknown.
  EXPECT_EQ(Find(Evaluate(in, "gpu-x8"), "cpu0", Subsystem::kThermal)->status, Status::kUnknown);
}

TEST(HealthRulesTest, NvlinkRecoveriesFailAndCrcCountsAloneDoNot) {
  HealthInput in;
  in.devices = {Gpu()};
  in.readings = {
      Errors("nvidia0", {{"nvlink_crc_flit", 40}, {"nvlink_replay", 3}, {"nvlink_recovery", 0}})};
  const std::optional<Verdict> fine = Find(Evaluate(in), "nvidia0", Subsystem::kInterconnect);
  ASSERT_TRUE(fine.has_value());
  EXPECT_EQ(fine->status, Status::kPass);
  EXPECT_NE(fine->evidence.find("nvlink_crc_flit=40"), std::string::npos);
  in.readings = {Errors("nvidia0", {{"nvlink_recovery", 2}})};
  const std::optional<Verdict> down = Find(Evaluate(in), "nvidia0", Subsystem::kInterconnect);
  EXPECT_EQ(down->code, "NVLINK_RECOVERY_ERRORS");
  EXPECT_EQ(down->action, Action::kResetDevice);
}

TEST(HealthRulesTest, RasBlocksLandInTheirSubsystems) {
  HealthInput in;
  Device amd;
  amd.backend = "amd";
  amd.id = "amd0";
  in.devices = {amd};
  in.readings = {Errors("amd0", {{"umc_uncorrectable", 2},
                                 {"umc_correctable", 5},
                                 {"xgmi_wafl_uncorrectable", 1},
                                 {"gfx_uncorrectable", 0}})};
  const HealthReport report = Evaluate(in);
  EXPECT_EQ(Find(report, "amd0", Subsystem::kMemory)->code, "MEM_UNCORRECTABLE");
  const std::optional<Verdict> link = Find(report, "amd0", Subsystem::kInterconnect);
  EXPECT_EQ(link->code, "RAS_UNCORRECTABLE");
  EXPECT_EQ(link->status, Status::kFail);
  EXPECT_NE(link->evidence.find("xgmi_wafl_uncorrectable=1"), std::string::npos);
}

TEST(HealthRulesTest, IciLinksFromLibtpuScores) {
  HealthInput in;
  Device tpu;
  tpu.backend = "tpu";
  tpu.id = "tpu0";
  in.devices = {tpu};
  auto links = [](std::vector<std::pair<std::string, double>> scores) {
    Reading r;
    r.metric = std::string(metrics::kIciLinkHealth);
    r.device = "tpu0";
    for (const auto& [link, score] : scores) {
      Sample s;
      s.labels.Set(labels::kDevice, "tpu0");
      s.labels.Set(labels::kLink, link);
      s.value = score;
      r.samples.push_back(std::move(s));
    }
    return r;
  };
  in.readings = {links({{"tray1.chip0.ici0.int", 0}, {"tray1.chip0.ici1.int", 3}})};
  std::optional<Verdict> v = Find(Evaluate(in), "tpu0", Subsystem::kInterconnect);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status, Status::kPass);
  EXPECT_EQ(v->evidence, "2 ICI links, worst score 3 of 10");
  in.readings = {links({{"tray1.chip0.ici0.int", 7}, {"tray1.chip0.ici1.int", 0}})};
  v = Find(Evaluate(in), "tpu0", Subsystem::kInterconnect);
  EXPECT_EQ(v->code, "TPU_ICI_LINK_DEGRADED");
  EXPECT_EQ(v->status, Status::kWarn);
  in.readings = {links({{"tray1.chip0.ici0.int", 7}, {"tray1.chip0.ici1.int", 10}})};
  v = Find(Evaluate(in), "tpu0", Subsystem::kInterconnect);
  EXPECT_EQ(v->code, "TPU_ICI_LINK_DOWN");
  EXPECT_EQ(v->action, Action::kDrainNode);
  EXPECT_EQ(v->evidence, "tray1.chip0.ici1.int scored 10");
  // No scores: unknown, with the reason the reading gives.
  in.readings = {Reading::Unsupported(metrics::kIciLinkHealth, "tpu0",
                                      "libtpu 0.0.52 returned no ici_link_health values")};
  v = Find(Evaluate(in), "tpu0", Subsystem::kInterconnect);
  EXPECT_EQ(v->status, Status::kUnknown);
  EXPECT_EQ(v->evidence, "libtpu 0.0.52 returned no ici_link_health values");
}

}  // namespace
}  // namespace xpuperf::health

// `xpuperf health` end to end on the fake libnvidia-ml.so.1: a GPU with a failed row remap, an XID
// in the kernel log of a recorded tree and thermal slowdown, next to a healthy one.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

using nlohmann::json;
using testing::RunXpuperf;

const std::string kHealthData = std::string(XPUPERF_SOURCE_DIR) + "/health/tests/data";
const std::string kTree = kHealthData + "/trees/gpu-xid79";

class HealthCliTest : public ::testing::Test {
 protected:
  testing::FakeNvml fake_nvml_{kHealthData + "/remap-failure.conf"};
};

const json* Verdict(const json& doc, std::string_view device, std::string_view subsystem) {
  for (const json& v : doc["verdicts"])
    if (v["device"] == device && v["subsystem"] == subsystem) return &v;
  return nullptr;
}

TEST_F(HealthCliTest, ASickGpuFailsWithItsCodesEvidenceAndActions) {
  auto r =
      RunXpuperf({"health", "--json", "--backend", "nvidia", "--root", kTree, "--window", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["healthy"], false);
  EXPECT_EQ(doc["status"], "fail");
  EXPECT_EQ(doc["action"], "replace_device");
  const json* memory = Verdict(doc, "nvidia0", "memory");
  ASSERT_NE(memory, nullptr) << r.out;
  EXPECT_EQ((*memory)["code"], "MEM_ROW_REMAP_FAILURE");
  EXPECT_EQ((*memory)["severity"], "critical");
  EXPECT_NE((*memory)["evidence"].get<std::string>().find("remapped_rows_failure=1"),
            std::string::npos);
  const json* driver = Verdict(doc, "nvidia0", "driver");
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ((*driver)["code"], "XID_79_FALLEN_OFF_BUS");
  EXPECT_EQ((*Verdict(doc, "nvidia0", "thermal"))["code"], "THERMAL_SLOWDOWN");
  const json* nvlink = Verdict(doc, "nvidia0", "interconnect");
  ASSERT_NE(nvlink, nullptr);
  EXPECT_EQ((*nvlink)["code"], "NVLINK_RECOVERY_ERRORS");
  EXPECT_NE((*nvlink)["evidence"].get<std::string>().find("nvlink_crc_flit=5"), std::string::npos);
  // The second GPU has no NVLink counters: unknown, not a pass.
  EXPECT_EQ((*Verdict(doc, "nvidia1", "interconnect"))["status"], "unknown");
  EXPECT_EQ((*Verdict(doc, "nvidia0", "pcie"))["status"], "pass");
  EXPECT_NE((*Verdict(doc, "nvidia0", "pcie"))["evidence"].get<std::string>().find(
                "3 PCIe replays since the driver loaded"),
            std::string::npos);
  EXPECT_NE((*Verdict(doc, "nvidia0", "thermal"))["evidence"].get<std::string>().find(
                "driver limits: slowdown at 87 °C, shutdown at 92 °C"),
            std::string::npos);
  // The second GPU: clean memory, capped power, no XID; its link is not in the tree.
  EXPECT_EQ((*Verdict(doc, "nvidia1", "memory"))["status"], "pass");
  EXPECT_EQ((*Verdict(doc, "nvidia1", "power"))["code"], "POWER_CAPPED");
  EXPECT_EQ((*Verdict(doc, "nvidia1", "driver"))["status"], "pass");
  EXPECT_EQ((*Verdict(doc, "nvidia1", "pcie"))["status"], "unknown");
  // Clocks: the idle GPU is not judged; the busy one is low for a reason the driver gives.
  EXPECT_EQ((*Verdict(doc, "nvidia0", "clocks"))["status"], "unknown");
  const json* capped = Verdict(doc, "nvidia1", "clocks");
  EXPECT_EQ((*capped)["status"], "pass");
  EXPECT_NE((*capped)["evidence"].get<std::string>().find("held down by sw_power_cap"),
            std::string::npos)
      << (*capped)["evidence"];
  EXPECT_TRUE(doc.contains("json_schema_version"));
}

// The driver's temperature thresholds: one GPU at its shutdown temperature, the other's memory at
// its maximum (no clock-event reasons readable on either).
TEST(HealthThermalCliTest, TemperaturesAgainstTheDriversThresholds) {
  testing::FakeNvml fake_nvml(kHealthData + "/hot-gpus.conf");
  auto r = RunXpuperf({"health", "--json", "--backend", "nvidia", "--root",
                       kHealthData + "/trees/gpu-x8", "--window", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  const json* shutdown = Verdict(doc, "nvidia0", "thermal");
  ASSERT_NE(shutdown, nullptr) << r.out;
  EXPECT_EQ((*shutdown)["code"], "THERMAL_SHUTDOWN_LIMIT");
  EXPECT_EQ((*shutdown)["action"], "drain_node");
  EXPECT_NE((*shutdown)["evidence"].get<std::string>().find("GPU 93 °C; driver limits: slowdown "
                                                            "at 87 °C, shutdown at 92 °C"),
            std::string::npos)
      << (*shutdown)["evidence"];
  const json* memory = Verdict(doc, "nvidia1", "thermal");
  EXPECT_EQ((*memory)["code"], "THERMAL_AT_LIMIT");
  EXPECT_EQ((*memory)["status"], "warn");
}

// A busy GPU at 345 of 1980 MHz with no clock-event reason: its clock is stuck low.
TEST(HealthClocksCliTest, ABusyGpuWithClocksStuckLowWarns) {
  testing::FakeNvml fake_nvml(kHealthData + "/stuck-clocks.conf");
  auto r = RunXpuperf({"health", "--json", "--backend", "nvidia", "--root",
                       kHealthData + "/trees/gpu-x8", "--window", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // a warning: still healthy enough to take work
  const json doc = json::parse(r.out);
  const json* clocks = Verdict(doc, "nvidia0", "clocks");
  ASSERT_NE(clocks, nullptr) << r.out;
  EXPECT_EQ((*clocks)["code"], "CLOCKS_STUCK_LOW");
  EXPECT_EQ((*clocks)["action"], "reset_device");
  EXPECT_NE((*clocks)["evidence"].get<std::string>().find("clock 345 of 1980 MHz maximum"),
            std::string::npos)
      << (*clocks)["evidence"];
}

TEST_F(HealthCliTest, TheTextSaysTheVerdictAndTheFindings) {
  auto r = RunXpuperf({"health", "--backend", "nvidia", "--root", kTree, "--window", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("unhealthy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MEM_ROW_REMAP_FAILURE"), std::string::npos);
  EXPECT_NE(r.out.find("Findings:"), std::string::npos);
  EXPECT_NE(r.out.find("fail nvidia0 driver XID_79_FALLEN_OFF_BUS"), std::string::npos) << r.out;
}

TEST_F(HealthCliTest, AHealthyDeviceExitsZeroAndAMissingOneFails) {
  auto healthy = RunXpuperf({"health", "--json", "--backend", "nvidia", "--device", "nvidia1",
                             "--root", kTree, "--window", "0"});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
  EXPECT_EQ(json::parse(healthy.out)["healthy"], true);
  auto missing = RunXpuperf({"health", "--json", "--backend", "nvidia", "--device", "nvidia1",
                             "--expect", "3", "--root", kTree, "--window", "0"});
  EXPECT_EQ(missing.exit_code, 1);
  const json doc = json::parse(missing.out);
  const json* node = Verdict(doc, "node", "driver");
  ASSERT_NE(node, nullptr) << missing.out;
  EXPECT_EQ((*node)["code"], "DRIVER_DEVICE_MISSING");
  EXPECT_EQ((*node)["action"], "drain_node");
}

TEST_F(HealthCliTest, BadOptionsAreOneLineUsageErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"health", "--expect", "-1"},
        std::vector<std::string>{"health", "--expect", "5000"},
        std::vector<std::string>{"health", "--window", "-2"},
        std::vector<std::string>{"health", "--deadline", "0"},
        std::vector<std::string>{"health", "--backend", "nvidia", "--device", "nvidia9"}}) {
    auto r = RunXpuperf(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("xpuperf health: error: ", 0), 0u) << r.err;
  }
}

// A recorded MI300X (amdgpu sysfs) whose gfx block counted an uncorrectable RAS error: the driver
// verdict fails, the memory (umc: 12 corrected, none uncorrectable) passes.
TEST(HealthAmdCliTest, ARecordedAmdgpuTreeWithARasErrorFails) {
  const std::string tree =
      std::string(XPUPERF_SOURCE_DIR) + "/backends/amd/tests/data/trees/mi300x";
  auto r = RunXpuperf({"health", "--json", "--backend", "amd", "--root", tree, "--window", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  const json* driver = Verdict(doc, "amd0", "driver");
  ASSERT_NE(driver, nullptr) << r.out;
  EXPECT_EQ((*driver)["code"], "RAS_UNCORRECTABLE");
  EXPECT_NE((*driver)["evidence"].get<std::string>().find("gfx_uncorrectable=1"),
            std::string::npos);
  const json* memory = Verdict(doc, "amd0", "memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ((*memory)["status"], "pass");
  EXPECT_NE((*memory)["evidence"].get<std::string>().find("umc_correctable=12"), std::string::npos);
}

// A GPU whose NVML call never returns: health ends at --deadline with the reason, as
// node-problem-detector's "unknown" (exit 2) with --npd and as an error (exit 1) without.
TEST(HealthDeadlineCliTest, AHungDeviceCallEndsAtTheDeadline) {
  testing::FakeNvml fake_nvml(kHealthData + "/hung-gpu.conf");
  auto npd = RunXpuperf({"health", "--npd", "--backend", "nvidia", "--deadline", "1"});
  EXPECT_EQ(npd.exit_code, 2) << npd.out << npd.err;
  EXPECT_EQ(npd.out.rfind("xpuperf health: unknown: no answer from the backends within 1 s", 0), 0u)
      << npd.out;
  EXPECT_LE(npd.out.size(), 81u);
  auto plain = RunXpuperf({"health", "--backend", "nvidia", "--deadline", "1"});
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  EXPECT_NE(plain.err.find("within 1 s (--deadline)"), std::string::npos) << plain.err;
}

#ifdef XPUPERF_FAKE_ZE
// A recorded Arc A770 (i915) whose Level Zero Sysman counts uncorrectable RAS errors (as root reads
// them): two in the cache fail memory, a reset fails the driver verdict.
TEST(HealthIntelCliTest, LevelZeroUncorrectableRasErrorsFail) {
  const std::string tree =
      std::string(XPUPERF_SOURCE_DIR) + "/backends/intel/tests/data/trees/arc-a770-i915";
  ::setenv("XPUPERF_LEVEL_ZERO_LIBRARY", XPUPERF_FAKE_ZE, 1);
  ::setenv("FAKE_ZE_RAS_UNCORRECTABLE", "5:2,0:1", 1);
  auto r = RunXpuperf({"health", "--json", "--backend", "intel", "--root", tree, "--window", "0"});
  ::unsetenv("FAKE_ZE_RAS_UNCORRECTABLE");
  auto refused =
      RunXpuperf({"health", "--json", "--backend", "intel", "--root", tree, "--window", "0"});
  ::unsetenv("XPUPERF_LEVEL_ZERO_LIBRARY");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  const json* memory = Verdict(doc, "intel0", "memory");
  ASSERT_NE(memory, nullptr) << r.out;
  EXPECT_EQ((*memory)["code"], "MEM_UNCORRECTABLE");
  EXPECT_NE((*memory)["evidence"].get<std::string>().find("uncorrectable_cache=2"),
            std::string::npos)
      << (*memory)["evidence"];
  const json* driver = Verdict(doc, "intel0", "driver");
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ((*driver)["code"], "RAS_UNCORRECTABLE");
  EXPECT_NE((*driver)["evidence"].get<std::string>().find("uncorrectable_reset=1"),
            std::string::npos);
  // Without root the uncorrectable set is refused: memory is unknown (not a pass), and nothing
  // claims the uncorrectable counts are zero.
  const json refused_doc = json::parse(refused.out);
  const json* partial = Verdict(refused_doc, "intel0", "memory");
  ASSERT_NE(partial, nullptr) << refused.out;
  EXPECT_EQ((*partial)["status"], "unknown");
  EXPECT_NE((*partial)["evidence"].get<std::string>().find("root only"), std::string::npos);
  EXPECT_EQ((*partial)["evidence"].get<std::string>().find("uncorrectable_cache"),
            std::string::npos)
      << (*partial)["evidence"];
}
#endif

// node-problem-detector's custom-plugin contract: one line of at most 80 bytes, exit 0 ok, 1 a
// problem, 2 unknown (health could not run).
TEST_F(HealthCliTest, NodeProblemDetectorPluginContract) {
  auto sick =
      RunXpuperf({"health", "--npd", "--backend", "nvidia", "--root", kTree, "--window", "0"});
  EXPECT_EQ(sick.exit_code, 1) << sick.err;
  EXPECT_EQ(std::count(sick.out.begin(), sick.out.end(), '\n'), 1) << sick.out;
  EXPECT_LE(sick.out.size(), 81u) << sick.out;
  EXPECT_EQ(sick.out.rfind("xpuperf health: nvidia0 ", 0), 0u) << sick.out;
  EXPECT_NE(sick.out.find("more"), std::string::npos) << sick.out;  // three failures, one named
  auto ok = RunXpuperf({"health", "--npd", "--backend", "nvidia", "--device", "nvidia1", "--root",
                        kTree, "--window", "0"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out.rfind("xpuperf health: no verdict fails", 0), 0u) << ok.out;
  auto unknown = RunXpuperf({"health", "--npd", "--backend", "nvidia", "--device", "nvidia9",
                             "--root", kTree, "--window", "0"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out.rfind("xpuperf health: unknown: ", 0), 0u) << unknown.out;
  EXPECT_LE(unknown.out.size(), 81u);
}

// --drain against a scripted scontrol: the drain call and its reason, and a failing scontrol
// reported with its exit status and output (never retried).
TEST_F(HealthCliTest, DrainCallsScontrolAndReportsItsFailure) {
  const std::string dir = ::testing::TempDir() + "/health-scontrol-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string log = dir + "/calls";
  const std::string script = dir + "/scontrol";
  {
    std::ofstream f(script);
    f << "#!/bin/sh\necho \"$@\" >> " << log << "\n"
      << "case \"$1\" in show) echo 'NodeName=n1 State=IDLE ThreadsPerCore=1';; esac\n"
      << "[ -f " << dir
      << "/fail ] && { echo 'slurm_update error: Invalid node name' >&2; exit 1; }\n"
      << "exit 0\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  auto r = RunXpuperf({"health", "--drain", "--node", "n1", "--scontrol", script, "--backend",
                       "nvidia", "--root", kTree, "--window", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("drained node n1: xpuperf: nvidia0"), std::string::npos) << r.err;
  std::ifstream calls(log);
  const std::string text((std::istreambuf_iterator<char>(calls)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("show node n1 -o"), std::string::npos) << text;
  EXPECT_NE(
      text.find("update NodeName=n1 State=DRAIN Reason=xpuperf: nvidia0 MEM_ROW_REMAP_FAILURE"),
      std::string::npos)
      << text;
  std::ofstream(dir + "/fail").put('\n');
  auto failed = RunXpuperf({"health", "--drain", "--node", "n1", "--scontrol", script, "--backend",
                            "nvidia", "--root", kTree, "--window", "0"});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("exit 1: slurm_update error: Invalid node name"), std::string::npos)
      << failed.err;
  // Healthy: nothing changes without --resume; --resume without --drain is a usage error.
  auto usage = RunXpuperf({"health", "--resume"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("--resume needs --drain"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xpuperf::cli

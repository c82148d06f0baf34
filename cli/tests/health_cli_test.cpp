// `xpuperf health` end to end on the fake libnvidia-ml.so.1: a GPU with a failed row remap, an XID
// in the kernel log of a recorded tree and thermal slowdown, next to a healthy one.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

using nlohmann::json;
using testing::RunXpuperf;

const std::string kFakeNvml =
    std::string(XPUPERF_BINARY_DIR) + "/backends/nvidia/tests/fake_nvml/full/libnvidia-ml.so.1";
const std::string kHealthData = std::string(XPUPERF_SOURCE_DIR) + "/health/tests/data";
const std::string kTree = kHealthData + "/trees/gpu-xid79";

class HealthCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("XPUPERF_NVML_LIBRARY", kFakeNvml.c_str(), 1);
    ::setenv("XPUPERF_FAKE_NVML_SCENARIO", (kHealthData + "/remap-failure.conf").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("XPUPERF_NVML_LIBRARY");
    ::unsetenv("XPUPERF_FAKE_NVML_SCENARIO");
  }
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
  EXPECT_EQ((*Verdict(doc, "nvidia0", "pcie"))["status"], "pass");
  // The second GPU: clean memory, capped power, no XID; its link is not in the tree.
  EXPECT_EQ((*Verdict(doc, "nvidia1", "memory"))["status"], "pass");
  EXPECT_EQ((*Verdict(doc, "nvidia1", "power"))["code"], "POWER_CAPPED");
  EXPECT_EQ((*Verdict(doc, "nvidia1", "driver"))["status"], "pass");
  EXPECT_EQ((*Verdict(doc, "nvidia1", "pcie"))["status"], "unknown");
  EXPECT_TRUE(doc.contains("json_schema_version"));
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
        std::vector<std::string>{"health", "--backend", "nvidia", "--device", "nvidia9"}}) {
    auto r = RunXpuperf(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("xpuperf health: error: ", 0), 0u) << r.err;
  }
}

}  // namespace
}  // namespace xpuperf::cli

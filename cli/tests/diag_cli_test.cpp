// `xpuperf diag`: level 1 on the fake NVML (device nodes of a recorded tree, health verdicts), a
// level-3 stress of one second on the CPU, and bad options as one-line usage errors.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

using nlohmann::json;
using testing::RunXpuperf;

const std::string kHealthData = std::string(XPUPERF_SOURCE_DIR) + "/health/tests/data";

std::string TempDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/diag-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

const json* FindTest(const json& doc, std::string_view test, std::string_view device) {
  for (const json& t : doc["tests"])
    if (t["test"] == test && t["device"] == device) return &t;
  return nullptr;
}

TEST(DiagCliTest, LevelOneChecksDeviceNodesAndHealth) {
  const std::string out = TempDir("level1");
  testing::CommandResult r;
  {
    testing::FakeNvml fake_nvml(kHealthData + "/remap-failure.conf");
    r = RunXpuperf({"diag", "-r", "1", "--json", "--backend", "nvidia", "--root",
                    kHealthData + "/trees/gpu-xid79", "--out", out});
  }
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["result"], "fail");
  EXPECT_EQ(doc["complete"], true);
  // The tree has no /dev/nvidia* nodes: each GPU's nodes are missing, with their paths.
  const json* nodes = FindTest(doc, "deployment.device_nodes", "nvidia0");
  ASSERT_NE(nodes, nullptr) << r.out;
  EXPECT_EQ((*nodes)["code"], "DEPLOY_DEVICE_NODE_MISSING");
  EXPECT_NE((*nodes)["evidence"].get<std::string>().find("/dev/nvidiactl"), std::string::npos);
  const json* memory = FindTest(doc, "health.memory", "nvidia0");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ((*memory)["code"], "MEM_ROW_REMAP_FAILURE");
  // The same document is in the result directory.
  EXPECT_TRUE(std::filesystem::is_regular_file(out + "/diag.json"));
  // Persistence mode: on for the second GPU; the first's driver gives none.
  EXPECT_EQ((*FindTest(doc, "deployment.persistence_mode", "nvidia1"))["status"], "pass");
  EXPECT_EQ((*FindTest(doc, "deployment.persistence_mode", "nvidia0"))["status"], "unknown");
  std::filesystem::remove_all(out);
}

TEST(DiagCliTest, PersistenceModeOffAndClocksStuckLowWarn) {
  const std::string out = TempDir("persistence");
  testing::CommandResult r;
  {
    testing::FakeNvml fake_nvml(kHealthData + "/stuck-clocks.conf");
    r = RunXpuperf({"diag", "-r", "1", "--json", "--backend", "nvidia", "--root",
                    kHealthData + "/trees/gpu-x8", "--out", out});
  }
  const json doc = json::parse(r.out);
  const json* persistence = FindTest(doc, "deployment.persistence_mode", "nvidia0");
  ASSERT_NE(persistence, nullptr) << r.out;
  EXPECT_EQ((*persistence)["status"], "warn");
  EXPECT_EQ((*persistence)["code"], "DEPLOY_PERSISTENCE_MODE_OFF");
  EXPECT_NE((*persistence)["evidence"].get<std::string>().find("nvidia-smi -i 0 -pm 1"),
            std::string::npos);
  const json* clocks = FindTest(doc, "health.clocks", "nvidia0");
  ASSERT_NE(clocks, nullptr);
  EXPECT_EQ((*clocks)["code"], "CLOCKS_STUCK_LOW");
  std::filesystem::remove_all(out);
}

TEST(DiagCliTest, LevelThreeStressesTheHostUnderWatch) {
  const std::string out = TempDir("level3");
  // The quick suite's compute and memory benchmarks run first: a generous deadline for a loaded
  // machine.
  auto r = RunXpuperf({"diag", "-r", "3", "--duration", "1", "--memory-mib", "16", "--json",
                       "--backend", "cpu", "--out", out},
                      600);
  const json doc = json::parse(r.out);
  // The performance gate may fail on a loaded machine; the memory and stress tests may not.
  const json* pattern = FindTest(doc, "memory_pattern", "cpu0");
  ASSERT_NE(pattern, nullptr) << r.out;
  EXPECT_EQ((*pattern)["status"], "pass") << (*pattern)["evidence"];
  const json* stress = FindTest(doc, "stress.host", "cpu0");
  ASSERT_NE(stress, nullptr) << r.out;
  EXPECT_EQ((*stress)["status"], "pass") << (*stress)["evidence"];
  ASSERT_NE(FindTest(doc, "stress.error_counters", "node"), nullptr);
  ASSERT_NE(FindTest(doc, "performance.compute.fp64", "cpu0"), nullptr) << r.out;
  EXPECT_TRUE(std::filesystem::is_directory(out + "/bench"));
  std::filesystem::remove_all(out);
}

TEST(DiagCliTest, BadOptionsAreOneLineUsageErrors) {
  const std::string existing = TempDir("exists");
  std::filesystem::create_directories(existing);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diag", "-r", "4"},
        std::vector<std::string>{"diag", "-r", "3", "--duration", "0"},
        std::vector<std::string>{"diag", "--expect", "-1"},
        std::vector<std::string>{"diag", "--memory-mib", "0"},
        std::vector<std::string>{"diag", "--out", existing}}) {
    auto r = RunXpuperf(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("xpuperf diag: error: ", 0), 0u) << r.err;
  }
  std::filesystem::remove_all(existing);
}

}  // namespace
}  // namespace xpuperf::cli

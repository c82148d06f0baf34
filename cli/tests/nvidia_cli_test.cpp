// The built xpuperf with the fake libnvidia-ml.so.1 (backends/nvidia/tests/fake_nvml) selected by
// XPUPERF_NVML_LIBRARY: the scripted GPUs are listed next to the CPU of a recorded tree.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

using nlohmann::json;
using testing::RunXpuperf;

const std::string kFakeNvml =
    std::string(XPUPERF_BINARY_DIR) + "/backends/nvidia/tests/fake_nvml/full/libnvidia-ml.so.1";
const std::string kScenarios =
    std::string(XPUPERF_TEST_DATA_DIR) + "/../../../backends/nvidia/tests/data";
const std::string kIntelTree = std::string(XPUPERF_CPU_TREES) + "/intel-2s";

class NvidiaCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("XPUPERF_NVML_LIBRARY", kFakeNvml.c_str(), 1);
    ::setenv("XPUPERF_FAKE_NVML_SCENARIO", (kScenarios + "/two-gpus.conf").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("XPUPERF_NVML_LIBRARY");
    ::unsetenv("XPUPERF_FAKE_NVML_SCENARIO");
  }
};

const json* FindReading(const json& doc, std::string_view metric, std::string_view device) {
  for (const json& r : doc["readings"]) {
    if (r["metric"] == metric && r["device"] == device) return &r;
  }
  return nullptr;
}

TEST_F(NvidiaCliTest, DevicesListsTheGpusNextToTheCpu) {
  auto r = RunXpuperf(
      {"devices", "--json", "--backend", "cpu", "--backend", "nvidia", "--root", kIntelTree});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["devices"].size(), 3u);
  EXPECT_EQ(doc["devices"][0]["id"], "cpu0");
  EXPECT_EQ(doc["devices"][1]["id"], "nvidia0");
  EXPECT_EQ(doc["devices"][1]["model"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(doc["devices"][1]["uuid"], "GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d");
  EXPECT_EQ(doc["devices"][1]["bus_id"], "00000000:19:00.0");
  EXPECT_EQ(doc["devices"][1]["memory_bytes"], 85520809984ull);
  EXPECT_EQ(doc["devices"][2]["id"], "nvidia1");
  EXPECT_EQ(doc["devices"][2]["model"], "NVIDIA A100-SXM4-40GB");
  doc.erase("host");
  doc.erase("xpuperf_version");
  EXPECT_EQ(testing::CompareGolden("nvidia-devices.json", doc.dump(2) + "\n"), "");
  auto table =
      RunXpuperf({"devices", "--backend", "cpu", "--backend", "nvidia", "--root", kIntelTree});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(testing::CompareGolden("nvidia-devices.txt", table.out), "");
}

TEST_F(NvidiaCliTest, MetricsTableShowsTheScriptedValues) {
  auto r =
      RunXpuperf({"metrics", "--backend", "nvidia", "--window", "0", "--metric",
                  "duty_cycle_percent", "--metric", "memory_used_bytes", "--metric", "power_watts",
                  "--metric", "clock_event_active", "--metric", "process_memory_bytes"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::CompareGolden("nvidia-metrics.txt", r.out), "");
}

// The fields nvidia-smi's first screen shows: clocks against their maximum, power against its
// limit, the performance state, the PCIe link, the throttle reasons in words, ECC and persistence.
TEST_F(NvidiaCliTest, TheDashboardShowsClocksPowerLinkAndThrottleInWords) {
  auto r = RunXpuperf({"metrics", "--backend", "nvidia", "--window", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Clocks, power and link"), std::string::npos) << r.out;
  for (const char* cell :
       {"1.98 GHz / 1.98 GHz", "350.1 W / 500.0 W", "P0", "gen5 x16 of gen5 x16",
        "power cap, thermal (SW)", "gen1 x8 of gen4 x16", "P8", "on (off after reset)"}) {
    EXPECT_NE(r.out.find(cell), std::string::npos) << "missing: " << cell << "\n" << r.out;
  }
}

// --format csv: the header once, one row per sample and time, the reason of a reading without a
// value; --watch prints it once across refreshes.
TEST_F(NvidiaCliTest, MetricsCsvHasOneHeaderAndOneRowPerSample) {
  auto r = RunXpuperf({"metrics", "--backend", "nvidia", "--format", "csv", "--watch", "--rate",
                       "0.1", "--count", "2", "-m", "power_limit_watts", "-m", "energy_joules"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("timestamp,host,device,metric,labels,value,unit,state,reason\n", 0), 0u);
  size_t headers = 0, pos = 0;
  while ((pos = r.out.find("timestamp,host", pos)) != std::string::npos) ++headers, ++pos;
  EXPECT_EQ(headers, 1u);
  EXPECT_NE(r.out.find(",nvidia0,power_limit_watts,type=enforced,500,watts,ok,\n"),
            std::string::npos)
      << r.out;
  // The A100's energy counter is refused: its row has no value and says why (quoted: it has a
  // comma).
  EXPECT_NE(r.out.find(",nvidia1,energy_joules,,,joules,unsupported,"), std::string::npos) << r.out;
  // Two refreshes of 8 rows (5 + 3 limits; 2 energy rows), after the header.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 2 * 10) << r.out;
  auto bad = RunXpuperf({"metrics", "--format", "xml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--format must be table, json or csv"), std::string::npos) << bad.err;
}

// Each refresh of a watched table starts with its time and host.
TEST_F(NvidiaCliTest, WatchedTablesSayWhenEachRefreshWasTaken) {
  auto r = RunXpuperf({"metrics", "--backend", "nvidia", "--watch", "--rate", "0.1", "--count", "2",
                       "-m", "performance_state"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(refresh 1) ==="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(refresh 2) ==="), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("=== 20", 0), 0u) << r.out;  // "=== 2026-12-07T04:45:12Z on host ..."
}

TEST_F(NvidiaCliTest, MetricsJsonHasGpmValuesAfterTheWindow) {
  // A 0.2 s window: the second GPM sample is taken by the Collect at its end.
  auto r = RunXpuperf({"metrics", "--json", "--backend", "nvidia", "--window", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json* tensor = FindReading(doc, "tensorcore_utilization_percent", "nvidia0");
  ASSERT_NE(tensor, nullptr);
  ASSERT_EQ((*tensor)["state"], "ok") << tensor->dump();
  EXPECT_DOUBLE_EQ((*tensor)["samples"][0]["value"].get<double>(), 62.5);
  const json* duty = FindReading(doc, "duty_cycle_percent", "nvidia1");
  ASSERT_NE(duty, nullptr);
  EXPECT_EQ((*duty)["samples"][0]["value"], 12.0);
  const json* gpm = FindReading(doc, "sm_occupancy_percent", "nvidia1");
  ASSERT_NE(gpm, nullptr);
  EXPECT_EQ((*gpm)["state"], "unsupported");
  EXPECT_EQ((*gpm)["reason"],
            "unsupported: GPM not supported on NVIDIA A100-SXM4-40GB (it needs Hopper or newer)");
}

TEST_F(NvidiaCliTest, MissingLibraryFailsOnlyWhenAskedFor) {
  ::setenv("XPUPERF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  auto asked = RunXpuperf({"devices", "--backend", "nvidia"});
  EXPECT_EQ(asked.exit_code, 1);
  EXPECT_TRUE(asked.out.empty()) << asked.out;
  EXPECT_EQ(asked.err,
            "xpuperf devices: error: nvidia backend: /nonexistent/libnvidia-ml.so.1 not found "
            "(/nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or "
            "directory)\n");
  // Not asked for by name: no GPU, and the reason in the backend list.
  auto all = RunXpuperf({"devices", "--json", "--root", kIntelTree});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const json doc = json::parse(all.out);
  for (const json& d : doc["devices"]) EXPECT_NE(d["backend"], "nvidia");
  bool listed = false;
  for (const json& b : doc["backends"]) {
    if (b["name"] != "nvidia") continue;
    listed = true;
    EXPECT_EQ(b["available"], false);
    EXPECT_EQ(b["reason"],
              "/nonexistent/libnvidia-ml.so.1 not found (/nonexistent/libnvidia-ml.so.1: cannot "
              "open shared object file: No such file or directory)");
  }
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace xpuperf::cli

namespace xpuperf::cli {
namespace {

TEST_F(NvidiaCliTest, TopShowsWhatIdentifiesEachGpuAndItsProcesses) {
  auto r = RunXpuperf({"top", "--plain", "--count", "1", "--rate", "0.1", "--backend", "nvidia"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Not "(0 cores, 0 threads)": compute capability, memory, driver, CUDA, bus.
  EXPECT_EQ(r.out.find("0 cores"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("(compute 9.0, 79.65 GiB, driver 550.54.15, CUDA 12.4, bus 00000000:19:00.0)"),
      std::string::npos)
      << r.out;
  // The processes on nvidia0 with the device memory each holds; the driver names 4242 only, and
  // 4343 stays unnamed ("?"), whatever /proc/4343 here may be.
  std::string row4242, row4343;
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("nvidia0") && line.find(" 4242 ") != std::string::npos) row4242 = line;
    if (line.starts_with("nvidia0") && line.find(" 4343 ") != std::string::npos) row4343 = line;
  }
  EXPECT_NE(row4242.find("1.00 GiB"), std::string::npos) << r.out;
  EXPECT_NE(row4242.find("python3"), std::string::npos) << r.out;
  EXPECT_NE(row4343.find("2.00 GiB"), std::string::npos) << r.out;
  // Busy: the busiest engine of each process (4242: SM 71%, 4343: SM 12%).
  EXPECT_NE(row4242.find("71.0%"), std::string::npos) << r.out;
  EXPECT_NE(row4343.find("12.0%"), std::string::npos) << r.out;
  EXPECT_NE(row4343.find(" ?"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no process"), std::string::npos) << r.out;  // nvidia1
}

}  // namespace
}  // namespace xpuperf::cli

namespace xpuperf::cli {
namespace {

// nvidia0 reads 54 C on its GPU sensor and 61 C on its HBM (field 82): the GPU's temperature is
// the GPU sensor's, titled "GPU", and the memory's is shown beside it, labelled; never the hottest
// sensor as "Temp".
TEST_F(NvidiaCliTest, TemperaturesAreNamedBySensor) {
  auto top = RunXpuperf({"top", "--plain", "--count", "1", "--rate", "0.1", "--backend", "nvidia"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("GPU 54.0 C, memory 61.0 C"), std::string::npos) << top.out;
  auto metrics = RunXpuperf({"metrics", "--backend", "nvidia"});
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  std::string gpu_row, memory_row;
  std::stringstream lines(metrics.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("nvidia0")) continue;
    if (line.find(" GPU ") != std::string::npos && line.find(" C") != std::string::npos) {
      gpu_row = line;
    }
    if (line.find(" memory ") != std::string::npos && line.find(" C") != std::string::npos) {
      memory_row = line;
    }
  }
  EXPECT_NE(gpu_row.find("54.0 C"), std::string::npos) << metrics.out;
  EXPECT_NE(memory_row.find("61.0 C"), std::string::npos) << metrics.out;
}

}  // namespace
}  // namespace xpuperf::cli

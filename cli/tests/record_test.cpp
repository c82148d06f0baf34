// `xpuperf record` end to end: exact joules from recorded trees whose counters advance during the
// test (RAPL across its wraparound) and from the fake NVML's advancing energy counter; the job's
// exit status; SIGTERM forwarded to the job.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <sstream>

#include "record_test_util.h"
#include "test_util.h"

namespace xpuperf::cli {
namespace {

using namespace record_testing;
using testing::RunXpuperf;

TEST_F(RecordTest, RaplAcrossItsWraparoundHwmonAndMeminfoFromAnAdvancingTree) {
  const fs::path tree = dir_ / "tree";
  fs::copy(kTrees + "/intel-2s", tree, fs::copy_options::recursive);
  const fs::path rapl = tree / "sys/class/powercap/intel-rapl:0";
  const uint64_t max = std::stoull(ReadAll(rapl / "max_energy_range_uj"));
  Write(rapl / "energy_uj", std::to_string(max - 1'000'000) + "\n");
  Write(tree / "sys/class/hwmon/hwmon0/temp1_input", "60000\n");
  const fs::path out = dir_ / "out";
  auto r = RunXpuperf({"record", "--root", tree.string(), "--backend", "cpu", "--rate", "50",
                       "--out", out.string(), "--", kData + "/cpu_tree_harness.sh", tree.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json summary = Summary(out);
  EXPECT_FALSE(summary["partial"].get<bool>());
  // 0.5 J to the top of the range, then (max - (max - 0.5 J)) + 1 µJ + 0.25 J across the wrap,
  // then 2 J: 3.250001 J, whichever of the written values the sampler happened to see.
  const json* package = Find(summary["energy"], "cpu0", "domain", "package-0");
  ASSERT_NE(package, nullptr) << summary["energy"].dump();
  EXPECT_NEAR((*package)["joules"].get<double>(), 3.250001, 1e-9);
  const json* other = Find(summary["energy"], "cpu0", "domain", "package-1");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ((*other)["joules"].get<double>(), 0.0);
  double peak = 0;
  for (const json& t : summary["temperature"])
    peak = std::max(peak, t["peak_celsius"].get<double>());
  EXPECT_EQ(peak, 95.5);
  const json* memory = Find(summary["memory"], "cpu0", "device", "cpu0");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ((*memory)["peak_used_bytes"].get<double>(), (197577420.0 - 184434948.0) * 1024);
  EXPECT_EQ(summary["exit"]["code"], 0);
  // The table says it too, and where the files are.
  EXPECT_NE(r.err.find("package-0"), std::string::npos) << r.err;
  for (const char* file :
       {"timeline.csv", "timeline.jsonl", "timeline.trace.json", "summary.json", "report.html"}) {
    EXPECT_TRUE(fs::exists(out / file)) << file;
  }
  json trace = json::parse(ReadAll(out / "timeline.trace.json"));
  int counters = 0;
  for (const json& e : trace["traceEvents"]) counters += e["ph"] == "C";
  EXPECT_GT(counters, 20);
}

TEST_F(RecordTest, FakeNvmlEnergyCounterGivesExactJoulesAndThePowerCap) {
  ::setenv("XPUPERF_NVML_LIBRARY", kFakeNvml.c_str(), 1);
  ::setenv("XPUPERF_FAKE_NVML_SCENARIO", (kData + "/fake-gpu-energy.conf").c_str(), 1);
  const fs::path out = dir_ / "out";
  auto r = RunXpuperf({"record", "--backend", "nvidia", "--rate", "20", "--out", out.string(),
                       "--json", "--", "sleep", "0.6"});
  ::unsetenv("XPUPERF_NVML_LIBRARY");
  ::unsetenv("XPUPERF_FAKE_NVML_SCENARIO");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json summary = json::parse(r.out);
  // Every read advances the counter 250 mJ: n readings saw (n - 1) × 0.25 J.
  int readings = 0;
  std::istringstream lines(ReadAll(out / "timeline.jsonl"));
  int energy_series = -1;
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line);
    if (j["type"] == "series" && j["metric"] == "energy_joules") energy_series = j["index"];
    if (j["type"] != "tick") continue;
    for (const json& v : j["values"]) readings += v[0] == energy_series;
  }
  ASSERT_GE(readings, 5);
  const json* gpu = Find(summary["energy"], "nvidia0", "domain", "gpu");
  ASSERT_NE(gpu, nullptr) << summary.dump();
  // The counter's own sum is exact; whether it is used depends on its check against ∫ power dt
  // (the fake's power does not follow its counter), and the summary says which was used.
  EXPECT_NEAR((*gpu)["counter_joules"].get<double>(), (readings - 1) * 0.25, 1e-6);  // µJ
  if ((*gpu)["source"] == "energy counter") {
    EXPECT_DOUBLE_EQ((*gpu)["joules"].get<double>(), (*gpu)["counter_joules"].get<double>());
  } else {
    EXPECT_TRUE((*gpu)["counter_problem"].is_string()) << gpu->dump();
  }
  const json* cap = Find(summary["clock_events"], "nvidia0", "reason", "sw_power_cap");
  ASSERT_NE(cap, nullptr);
  EXPECT_NEAR((*cap)["share"].get<double>(), 1.0, 0.05);
  bool capped = false;
  for (const json& f : summary["findings"]) capped = capped || f["rule"] == "power_capped";
  EXPECT_TRUE(capped) << summary["findings"].dump();
  const json* duty = Find(summary["duty_cycle"], "nvidia0", "device", "nvidia0");
  ASSERT_NE(duty, nullptr);
  EXPECT_EQ((*duty)["p50_percent"].get<double>(), 97);
}

TEST_F(RecordTest, ExitsWithTheJobsStatus) {
  auto r = RunXpuperf({"record", "--backend", "cpu", "--rate", "20", "--out", (dir_ / "a").string(),
                       "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(Summary(dir_ / "a")["exit"]["code"], 3);
  auto missing = RunXpuperf(
      {"record", "--backend", "cpu", "--out", (dir_ / "b").string(), "--", "/nonexistent/program"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("cannot run '/nonexistent/program'"), std::string::npos)
      << missing.err;
  auto both = RunXpuperf({"record", "--pid", "1", "--", "true"});
  EXPECT_EQ(both.exit_code, 2);
  auto rate = RunXpuperf({"record", "--rate", "0", "--", "true"});
  EXPECT_EQ(rate.exit_code, 2);
  EXPECT_NE(rate.err.find("--rate"), std::string::npos);
}

TEST_F(RecordTest, SigtermReachesTheJob) {
  const fs::path marker = dir_ / "got-term";
  const fs::path ready = dir_ / "ready";
  Background b = Start({"record", "--backend", "cpu", "--rate", "20", "--out",
                        (dir_ / "out").string(), "--", "sh", "-c",
                        "trap 'echo term > " + marker.string() + "; exit 7' TERM; echo ok > " +
                            ready.string() + "; while :; do sleep 0.05; done"});
  ASSERT_TRUE(WaitForFile(ready, 20));
  ::kill(b.pid, SIGTERM);
  EXPECT_EQ(Wait(b.pid), 7) << ReadAll(b.err_path);
  EXPECT_EQ(ReadAll(marker), "term\n");
  EXPECT_EQ(Summary(dir_ / "out")["exit"]["code"], 7);
  ::unlink(b.err_path.c_str());
}

// A job that ignores SIGTERM: the second SIGTERM kills it, and the recording still ends whole.
TEST_F(RecordTest, ASecondSigtermKillsAJobThatIgnoresTheFirst) {
  const fs::path ready = dir_ / "ready";
  Background b = Start(
      {"record", "--backend", "cpu", "--rate", "20", "--out", (dir_ / "out").string(), "--", "sh",
       "-c", "trap '' TERM; echo ok > " + ready.string() + "; while :; do sleep 0.05; done"});
  ASSERT_TRUE(WaitForFile(ready, 20));
  ::kill(b.pid, SIGTERM);
  // Wait until the first one was seen (the recorder logs it), then send the second.
  for (int i = 0; i < 600 && ReadAll(b.err_path).find("passed to the job") == std::string::npos;
       ++i) {
    usleep(100000);
  }
  ::kill(b.pid, SIGTERM);
  EXPECT_EQ(Wait(b.pid), 128 + SIGKILL) << ReadAll(b.err_path);
  EXPECT_EQ(Summary(dir_ / "out")["exit"]["signal"], SIGKILL);
  ::unlink(b.err_path.c_str());
}

}  // namespace
}  // namespace xpuperf::cli

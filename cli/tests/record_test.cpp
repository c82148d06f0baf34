// `xpuperf record` end to end: exact joules from recorded trees whose counters advance during the
// test (RAPL across its wraparound) and from the fake NVML's advancing energy counter; the job's
// exit status; SIGTERM forwarded to the job; files left by `kill -9` that `analyze --telemetry`
// still reads.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunXpuperf;

const std::string kTrees = XPUPERF_CPU_TREES;
const std::string kData = std::string(XPUPERF_TEST_DATA_DIR) + "/record";
const std::string kFakeNvml =
    std::string(XPUPERF_BINARY_DIR) + "/backends/nvidia/tests/fake_nvml/full/libnvidia-ml.so.1";

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

json Summary(const fs::path& dir) { return json::parse(ReadAll(dir / "summary.json")); }

const json* Find(const json& rows, const std::string& device, const std::string& key,
                 const std::string& value) {
  for (const json& row : rows) {
    if (row["device"] == device && row[key] == value) return &row;
  }
  return nullptr;
}

// xpuperf started in the background, for the signal tests.
struct Background {
  pid_t pid = -1;
  std::string err_path;
};

Background Start(const std::vector<std::string>& args) {
  Background b;
  b.err_path =
      (fs::temp_directory_path() / ("xpuperf-record-err-" + std::to_string(::getpid()))).string();
  b.pid = ::fork();
  if (b.pid == 0) {
    const int err = ::open(b.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(err, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    // Its own process group, as a batch scheduler would start it: a signal sent to xpuperf
    // reaches only xpuperf, which has to pass it on.
    ::setpgid(0, 0);
    std::vector<char*> argv;
    std::string exe = XPUPERF_EXECUTABLE;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::alarm(60);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  return b;
}

int Wait(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool WaitForFile(const fs::path& path, double seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (fs::exists(path) && fs::file_size(path) > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class RecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("xpuperf-record-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

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
  EXPECT_NEAR((*gpu)["joules"].get<double>(), (readings - 1) * 0.25, 1e-9);
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
                        "trap 'echo term > " + marker.string() + "; exit 7' TERM; touch " +
                            ready.string() + "; while :; do sleep 0.05; done"});
  ASSERT_TRUE(WaitForFile(ready, 20));
  ::kill(b.pid, SIGTERM);
  EXPECT_EQ(Wait(b.pid), 7) << ReadAll(b.err_path);
  EXPECT_EQ(ReadAll(marker), "term\n");
  EXPECT_EQ(Summary(dir_ / "out")["exit"]["code"], 7);
  ::unlink(b.err_path.c_str());
}

TEST_F(RecordTest, KillNineLeavesFilesAnalyzeTelemetryReads) {
  const fs::path out = dir_ / "out";
  const fs::path job_pid = dir_ / "job.pid";
  Background b = Start({"record", "--backend", "cpu", "--rate", "50", "--out", out.string(), "--",
                        "sh", "-c", "echo $$ > " + job_pid.string() + "; exec sleep 30"});
  ASSERT_TRUE(WaitForFile(job_pid, 20));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(b.pid, SIGKILL);
  EXPECT_EQ(Wait(b.pid), 128 + SIGKILL);
  ::kill(std::stoi(ReadAll(job_pid)), SIGKILL);
  ::unlink(b.err_path.c_str());

  // Whole lines only; the Chrome trace is still one JSON document.
  const std::string csv = ReadAll(out / "timeline.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  EXPECT_FALSE(json::parse(ReadAll(out / "timeline.trace.json"), nullptr, false).is_discarded());
  // A trace whose two steps fall inside the recording, by wall clock (Kineto's base + ts).
  std::istringstream lines(ReadAll(out / "timeline.jsonl"));
  std::string header_line;
  std::getline(lines, header_line);
  const int64_t start = json::parse(header_line)["start_wall_ns"].get<int64_t>();
  const int64_t base = start / 1'000'000'000 * 1'000'000'000;
  const double offset_us = static_cast<double>(start - base) / 1e3;
  json trace = {
      {"schemaVersion", 1}, {"baseTimeNanoseconds", base}, {"traceEvents", json::array()}};
  for (int step = 0; step < 2; ++step) {
    trace["traceEvents"].push_back({{"ph", "X"},
                                    {"cat", "user_annotation"},
                                    {"name", "ProfilerStep#" + std::to_string(step)},
                                    {"pid", 1},
                                    {"tid", 1},
                                    {"ts", offset_us + 200'000 + step * 400'000},
                                    {"dur", 400'000}});
  }
  const fs::path trace_file = dir_ / "trace.json";
  Write(trace_file, trace.dump());
  const fs::path merged = dir_ / "merged.json";
  auto r = RunXpuperf({"analyze", trace_file.string(), "--telemetry", out.string(), "--json",
                       "--merged-trace", merged.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json& telemetry = doc["telemetry"];
  EXPECT_EQ(telemetry["alignment"]["trace_base_time_ns"].get<int64_t>(), base);
  // The first sample follows the header's clock reading by well under 10 ms.
  EXPECT_NEAR(telemetry["alignment"]["trace_starts_after_telemetry_seconds"].get<double>(), 0.2,
              0.01);
  if (!telemetry.contains("unavailable")) {  // this host has an energy source
    ASSERT_EQ(telemetry["steps"].size(), 2u);
    EXPECT_NEAR(telemetry["steps"][0]["duration_seconds"].get<double>(), 0.4, 1e-9);
    EXPECT_NEAR(telemetry["steps"][0]["telemetry_coverage"].get<double>(), 1.0, 1e-6);
  }
  // The merged trace holds the ops and the counter tracks.
  json merged_doc = json::parse(ReadAll(merged));
  int ops = 0, counters = 0;
  for (const json& e : merged_doc["traceEvents"]) {
    ops += e["ph"] == "X";
    counters += e["ph"] == "C";
  }
  EXPECT_EQ(ops, 2);
  EXPECT_GT(counters, 10);
}

TEST_F(RecordTest, AnalyzeTelemetryEnergyPerStepIsExact) {
  // A handmade recording: package-0 counter 0 J at t0, 10 J at t0 + 1 s, 30 J at t0 + 2 s.
  const int64_t t0 = 1'750'000'000'000'000'000;
  std::string jsonl =
      "{\"type\":\"header\",\"start_wall_ns\":" + std::to_string(t0) +
      ",\"rate_hz\":1}\n"
      "{\"type\":\"series\",\"index\":0,\"metric\":\"energy_joules\",\"device\":\"cpu0\","
      "\"labels\":{\"domain\":\"package-0\"},\"unit\":\"joules\"}\n";
  for (int i = 0; i < 3; ++i) {
    jsonl += "{\"type\":\"tick\",\"wall_ns\":" + std::to_string(t0 + i * 1'000'000'000LL) +
             ",\"mono_ns\":" + std::to_string(i * 1'000'000'000LL) + ",\"values\":[[0," +
             std::to_string(i == 0   ? 0
                            : i == 1 ? 10
                                     : 30) +
             "]]}\n";
  }
  fs::create_directories(dir_ / "rec");
  Write(dir_ / "rec" / "timeline.jsonl", jsonl);
  // ProfilerStep#7 from t0 + 0.5 s to t0 + 1.5 s: 0.5 s at 10 W + 0.5 s at 20 W = 15 J.
  json trace = {{"baseTimeNanoseconds", t0},
                {"traceEvents",
                 {{{"ph", "X"},
                   {"cat", "user_annotation"},
                   {"name", "ProfilerStep#7"},
                   {"pid", 1},
                   {"tid", 1},
                   {"ts", 500000},
                   {"dur", 1000000}}}}};
  Write(dir_ / "trace.json", trace.dump());
  auto r = RunXpuperf({"analyze", (dir_ / "trace.json").string(), "--telemetry",
                       (dir_ / "rec").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = json::parse(r.out)["telemetry"];
  ASSERT_EQ(t["steps"].size(), 1u);
  EXPECT_EQ(t["steps"][0]["step"], 7);
  EXPECT_DOUBLE_EQ(t["steps"][0]["joules"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(t["steps"][0]["average_watts"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(t["joules_per_step"]["mean"].get<double>(), 15.0);
  auto text = RunXpuperf(
      {"analyze", (dir_ / "trace.json").string(), "--telemetry", (dir_ / "rec").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("J/step: mean 15.000"), std::string::npos) << text.out;
  // A broken recording is one clear line and exit 1.
  Write(dir_ / "rec" / "timeline.jsonl", jsonl + "garbage\n" + jsonl);
  auto bad = RunXpuperf(
      {"analyze", (dir_ / "trace.json").string(), "--telemetry", (dir_ / "rec").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("timeline.jsonl line 6: not a JSON object"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace xpuperf::cli

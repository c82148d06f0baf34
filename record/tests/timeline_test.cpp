// Timeline files written and read back, kills simulated by cutting the file, energy windows.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/job_tree.h"
#include "xpuperf/record/timeline_files.h"
#include "xpuperf/record/timeline_reader.h"

namespace xpuperf::record {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class TimelineFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("xpuperf-record-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TimelineFilesTest, EveryFlushLeavesParseableFiles) {
  RecordingHeader header{.start_wall_ns = 1'700'000'000'000'000'000,
                         .rate_hz = 10,
                         .command = {"train", "--epochs=1"},
                         .pid = 0,
                         .host = "h",
                         .devices = {"cpu0"}};
  auto files = TimelineFiles::Open(dir_.string(), header);
  ASSERT_TRUE(files.ok()) << files.error().message;
  SeriesTable table;
  for (int i = 0; i < 5; ++i) {
    Tick tick{header.start_wall_ns + i * 100'000'000LL, i * 100'000'000LL, {}};
    tick.values.push_back(
        {table.Intern(metrics::kEnergy, "cpu0", {{"domain", "package-0"}}), 1.5 * i});
    tick.values.push_back({table.Intern(metrics::kDutyCycle, "cpu0", {}), 10.0 * i});
    if (i >= 2) {
      // A series that appears later, with a comma in a label value.
      tick.values.push_back({table.Intern(metrics::kTemperature, "cpu0", {{"sensor", "a,b"}}), 50});
    }
    files->Append(tick, table);
    ASSERT_TRUE(files->Flush().ok());
    // After each flush: the Chrome trace is one JSON document, the JSONL reads back whole.
    auto trace = nlohmann::json::parse(ReadAll((dir_ / kTimelineTrace).string()), nullptr, false);
    ASSERT_FALSE(trace.is_discarded()) << "flush " << i;
    auto data = ParseTimelineJsonl(ReadAll((dir_ / kTimelineJsonl).string()));
    ASSERT_TRUE(data.ok()) << data.error().message;
    EXPECT_EQ(data->ticks.size(), static_cast<size_t>(i + 1));
  }
  auto data = ReadTimeline(dir_.string());
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->command, header.command);
  EXPECT_EQ(data->table.size(), 3u);
  EXPECT_EQ(data->table[2].labels.Get("sensor"), "a,b");
  EXPECT_DOUBLE_EQ(data->ticks[4].values[0].value, 6.0);
  const std::string csv = ReadAll((dir_ / kTimelineCsv).string());
  EXPECT_NE(csv.find("cpu0,temperature_celsius,\"sensor=a,b\",50,celsius\n"), std::string::npos)
      << csv;
  auto trace = nlohmann::json::parse(ReadAll((dir_ / kTimelineTrace).string()));
  int counters = 0;
  for (const auto& e : trace["traceEvents"]) counters += e["ph"] == "C";
  EXPECT_EQ(counters, 5 * 2 + 3);  // energy and duty each tick, temperature from tick 2
}

// A full disk (a file-size limit here, which fails writes the same way, part-way through) leaves
// every file parseable up to its last complete flush.
TEST_F(TimelineFilesTest, AFailedWriteLeavesEveryFileParseable) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of the signal
    RecordingHeader header{.start_wall_ns = 1'700'000'000'000'000'000,
                           .rate_hz = 10,
                           .command = {"job"},
                           .pid = 0,
                           .host = "h",
                           .devices = {"cpu0"}};
    auto files = TimelineFiles::Open(dir_.string(), header);
    if (!files.ok()) ::_exit(2);
    SeriesTable table;
    bool failed = false;
    for (int i = 0; i < 200 && !failed; ++i) {
      for (int k = 0; k < 5; ++k) {
        Tick tick{header.start_wall_ns + (i * 5 + k) * 100'000'000LL, 0, {}};
        for (int d = 0; d < 8; ++d) {
          tick.values.push_back(
              {table.Intern(metrics::kDutyCycle, "cpu" + std::to_string(d), {}), 1.0 * i});
        }
        files->Append(tick, table);
      }
      if (i == 3) {
        // From now on no file may grow past the current trace's size plus a little.
        const auto size = std::filesystem::file_size(dir_ / kTimelineTrace);
        const rlimit limit{size + 300, size + 300};
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
      }
      failed = !files->Flush().ok();
    }
    ::_exit(failed ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "a flush past the limit must fail";
  auto trace = nlohmann::json::parse(ReadAll((dir_ / kTimelineTrace).string()), nullptr, false);
  EXPECT_FALSE(trace.is_discarded());
  auto data = ParseTimelineJsonl(ReadAll((dir_ / kTimelineJsonl).string()));
  ASSERT_TRUE(data.ok()) << data.error().message;
  const std::string csv = ReadAll((dir_ / kTimelineCsv).string());
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
}

TEST(ParseTimelineJsonl, ACutLastLineIsDroppedAndAMalformedLineIsAnError) {
  const std::string head =
      "{\"type\":\"header\",\"start_wall_ns\":5,\"rate_hz\":10}\n"
      "{\"type\":\"series\",\"index\":0,\"metric\":\"energy_joules\",\"device\":\"cpu0\","
      "\"labels\":{\"domain\":\"package-0\"},\"unit\":\"joules\"}\n"
      "{\"type\":\"tick\",\"wall_ns\":10,\"mono_ns\":1,\"values\":[[0,1.5]]}\n";
  auto cut = ParseTimelineJsonl(head + "{\"type\":\"tick\",\"wall_ns\":20,\"mono");
  ASSERT_TRUE(cut.ok()) << cut.error().message;
  EXPECT_TRUE(cut->dropped_partial_line);
  EXPECT_EQ(cut->ticks.size(), 1u);
  auto bad = ParseTimelineJsonl(head + "{oops\n" + head);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "timeline.jsonl line 4: not a JSON object");
  auto unknown = ParseTimelineJsonl(head +
                                    "{\"type\":\"tick\",\"wall_ns\":1,\"mono_ns\":1,"
                                    "\"values\":[[7,1]]}\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "timeline.jsonl line 4: value for unknown series 7");
  EXPECT_FALSE(ParseTimelineJsonl("").ok());
}

TEST(EnergyInWindow, ApportionsEachIntervalsAveragePower) {
  // 0 J at 0 s, 10 J at 1 s, 30 J at 2 s: 10 W, then 20 W.
  EnergyTrack track{"cpu0",      "package-0", true, {0, 1'000'000'000, 2'000'000'000},
                    {0, 10, 30}, 0,           "",   {}};
  WindowEnergy w = EnergyInWindow(track, 500'000'000, 1'500'000'000);
  EXPECT_DOUBLE_EQ(w.joules, 15.0);
  EXPECT_DOUBLE_EQ(w.covered_s, 1.0);
  // Half of the window lies after the last sample: only what was measured counts.
  w = EnergyInWindow(track, 1'500'000'000, 2'500'000'000);
  EXPECT_DOUBLE_EQ(w.joules, 10.0);
  EXPECT_DOUBLE_EQ(w.covered_s, 0.5);
}

TEST(EnergyTracks, CountersRestartAndPowerOnlyDomainsIntegrate) {
  TimelineData data;
  const uint32_t energy = data.table.Intern(metrics::kEnergy, "nvidia0", {{"domain", "gpu"}});
  const uint32_t power = data.table.Intern(metrics::kPower, "cpu0", {{"domain", "acpi"}});
  // The counter goes 100 -> 150 -> (driver reload) 20 -> 30: 50 + 20 + 10 = 80 J.
  const double values[] = {100, 150, 20, 30};
  for (int i = 0; i < 4; ++i) {
    data.ticks.push_back(
        {i * 1'000'000'000LL, i * 1'000'000'000LL, {{energy, values[i]}, {power, 5.0 * (i + 1)}}});
  }
  auto tracks = EnergyTracks(data);
  ASSERT_EQ(tracks.size(), 2u);
  EXPECT_DOUBLE_EQ(tracks[0].joules.back(), 80.0);
  EXPECT_DOUBLE_EQ(tracks[0].resolution_s, 1.0);
  EXPECT_FALSE(tracks[1].from_counter);
  EXPECT_DOUBLE_EQ(tracks[1].joules.back(), 5.0 + 10.0 + 15.0);  // each power held 1 s
}

TEST(Accumulator, CounterIncreaseSurvivesAReset) {
  SeriesTable table;
  const uint32_t s = table.Intern(metrics::kEnergy, "cpu0", {{"domain", "package-0"}});
  TimelineAccumulator acc;
  const double values[] = {10, 12, 3, 4};
  for (int i = 0; i < 4; ++i) acc.Add({i * 1000LL, i * 1000LL, {{s, values[i]}}}, table);
  EXPECT_DOUBLE_EQ(acc.stats(s).increase, 2 + 3 + 1);
  EXPECT_EQ(acc.stats(s).resets, 1);
}

TEST(Accumulator, KeepsAtMostTheCapOfRealSamples) {
  SeriesTable table;
  const uint32_t s = table.Intern(metrics::kDutyCycle, "cpu0", {});
  TimelineAccumulator acc(100);
  for (int i = 0; i < 1000; ++i) acc.Add({i * 1000LL, i * 1000LL, {{s, double(i)}}}, table);
  const auto& points = acc.points(s);
  EXPECT_LE(points.size(), 100u);
  EXPECT_GE(points.size(), 50u);
  for (const Point& p : points) EXPECT_DOUBLE_EQ(p.value, p.t_s * 1e6);  // kept, not averaged
  EXPECT_EQ(acc.stats(s).count, 1000);
  EXPECT_DOUBLE_EQ(acc.stats(s).max, 999);
}

TEST(JobTree, ParsesStatLinesWithHostileNames) {
  auto ppid = ParseParentPid("42 (a) b (c)) S 17 42 42 0 -1");
  ASSERT_TRUE(ppid.ok());
  EXPECT_EQ(*ppid, 17);
  EXPECT_FALSE(ParseParentPid("42 (x) S").ok());
  auto pages = ParseResidentPages("100 25 3 1 0 20 0\n");
  ASSERT_TRUE(pages.ok());
  EXPECT_EQ(*pages, 25u);
}

TEST(JobTree, ProcessStateLetterAndAZombieIsNotRunning) {
  EXPECT_EQ(*ParseProcessState("42 (a) Z) S 17 42"), 'S');
  EXPECT_EQ(*ParseProcessState("7 (sleep) Z 1 7 7 0"), 'Z');
  EXPECT_FALSE(ParseProcessState("42 (x)").ok());
  EXPECT_FALSE(ParseProcessState("42 x S 1").ok());
  EXPECT_TRUE(ProcessIsRunning(::getpid()));
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  // Unreaped, the child is a zombie: kill(pid, 0) still answers, yet it has exited.
  for (int i = 0; i < 200 && ProcessIsRunning(child); ++i) ::usleep(10000);
  EXPECT_FALSE(ProcessIsRunning(child));
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(ProcessIsRunning(child));
}

TEST(JobTree, FollowsTheChildrenOfARealProcess) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::sleep(5);
    ::_exit(0);
  }
  JobTree tree("/", ::getpid(), static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  JobTreeSnapshot snapshot = tree.Read(true);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(snapshot.root_alive);
  EXPECT_NE(std::find(snapshot.pids.begin(), snapshot.pids.end(), child), snapshot.pids.end());
  EXPECT_GT(snapshot.resident_bytes, 0u);
}

}  // namespace
}  // namespace xpuperf::record

// `xpuperf record` without a command: following an existing process (--pid) until it exits, even
// when its parent has not reaped it yet, and recording the machine for --duration seconds.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_test_util.h"
#include "test_util.h"

namespace xpuperf::cli {
namespace {

using namespace record_testing;
using testing::RunXpuperf;

// A child of this test that runs for `seconds` and is then left unreaped (a zombie) until the
// caller waits for it: the recorder must see it as exited all the same.
pid_t SpawnSleeper(double seconds) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::usleep(static_cast<useconds_t>(seconds * 1e6));
    ::_exit(0);
  }
  return pid;
}

TEST_F(RecordTest, PidIsFollowedUntilItExitsAndExitsZero) {
  const pid_t job = SpawnSleeper(1.0);
  const fs::path out = dir_ / "out";
  // A record that kept following the exited job would never end: the child's alarm (300 s, far
  // beyond the 1 s job on any load) kills it, and the exit code below says so. No clock here.
  auto r = RunXpuperf({"record", "--pid", std::to_string(job), "--backend", "cpu", "--rate", "20",
                       "--no-html", "--out", out.string(), "--json"},
                      300);
  ::waitpid(job, nullptr, 0);
  ASSERT_EQ(r.exit_code, 0) << "record did not end after the job exited: " << r.err;
  json summary = json::parse(r.out);
  EXPECT_EQ(summary["pid"], job);
  EXPECT_FALSE(summary["partial"].get<bool>());
  // Followed until the job exited (a lower bound: load only lengthens it).
  EXPECT_GE(summary["duration_seconds"].get<double>(), 0.5);
  EXPECT_GE(summary["ticks"].get<int>(), 1);  // sampled at all (how many depends on the load)
  // The job's process tree is what "job peak" memory is about: it was seen.
  const json* memory = Find(summary["memory"], "cpu0", "device", "cpu0");
  ASSERT_NE(memory, nullptr) << summary["memory"].dump();
  EXPECT_TRUE(fs::exists(out / "timeline.jsonl"));
  EXPECT_EQ(Summary(out)["pid"], job);
}

TEST_F(RecordTest, DurationRecordsTheMachineForThatLong) {
  const fs::path out = dir_ / "out";
  auto r = RunXpuperf({"record", "--duration", "0.6", "--backend", "cpu", "--rate", "20",
                       "--no-html", "--out", out.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json summary = json::parse(r.out);
  EXPECT_TRUE(summary["pid"].is_null());
  EXPECT_NEAR(summary["duration_seconds"].get<double>(), 0.6, 0.25);
  EXPECT_GE(summary["ticks"].get<int>(), 6);
  const json* duty = Find(summary["duty_cycle"], "cpu0", "device", "cpu0");
  ASSERT_NE(duty, nullptr) << summary["duty_cycle"].dump();
}

// --progress S: a line every S seconds with the time so far, what is left of --duration and the
// samples kept; --progress 0: none.
TEST_F(RecordTest, ProgressLinesSayHowFarTheRecordingIs) {
  auto r = RunXpuperf({"record", "--duration", "3", "--progress", "0.2", "--backend", "cpu",
                       "--rate", "20", "--no-html", "--out", (dir_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(" of 3 s, about "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s left; "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" samples\n"), std::string::npos) << r.err;
  auto quiet = RunXpuperf({"record", "--duration", "0.5", "--progress", "0", "--backend", "cpu",
                           "--rate", "20", "--no-html", "--out", (dir_ / "quiet").string()});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find(" s left; "), std::string::npos) << quiet.err;
  auto bad = RunXpuperf({"record", "--duration", "1", "--progress", "-1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--progress must be between 0"), std::string::npos) << bad.err;
}

TEST_F(RecordTest, PidAndDurationTogetherStopAtTheEarlier) {
  const pid_t job = SpawnSleeper(30);
  auto r =
      RunXpuperf({"record", "--pid", std::to_string(job), "--duration", "0.5", "--backend", "cpu",
                  "--rate", "20", "--no-html", "--out", (dir_ / "out").string(), "--json"});
  ::kill(job, SIGKILL);
  ::waitpid(job, nullptr, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(json::parse(r.out)["duration_seconds"].get<double>(), 0.5, 0.25);
}

TEST_F(RecordTest, BadPidOrDurationIsAUsageErrorInOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"record", "--pid", "0"},
                                             {"record", "--pid", "abc"},
                                             {"record", "--duration", "-1"},
                                             {"record", "--duration", "nan"}}) {
    auto r = RunXpuperf(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << args[2] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // A pid that does not exist: one line, exit 1, no files left behind.
  auto missing = RunXpuperf({"record", "--pid", "2147483646", "--out", (dir_ / "gone").string()});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "gone" / "summary.json"));
}

}  // namespace
}  // namespace xpuperf::cli

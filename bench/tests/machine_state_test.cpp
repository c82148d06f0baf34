#include "xpuperf/bench/machine_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::bench {
namespace {

namespace fs = std::filesystem;

// A recorded /proc and /sys tree in a temporary folder.
class RecordedTree {
 public:
  RecordedTree()
      : root_(fs::temp_directory_path() / fs::path("machine_state_" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
  }
  ~RecordedTree() { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text;
  }
  // /proc/stat with the aggregate line, two CPUs and procs_running.
  void Stat(int64_t user, int64_t system, int64_t idle, int64_t steal, int running = 1) {
    Write("proc/stat", "cpu  " + std::to_string(user) + " 0 " + std::to_string(system) + " " +
                           std::to_string(idle) + " 0 0 0 " + std::to_string(steal) +
                           " 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\n"
                           "intr 0\nprocs_running " +
                           std::to_string(running) + "\n");
  }
  // utime and stime (fields 14, 15) of /proc/self/stat; the name holds spaces and ')'.
  void Self(int64_t utime, int64_t stime) {
    Write("proc/self/stat", "42 (x (y) z) R 1 1 1 0 -1 0 0 0 0 0 " + std::to_string(utime) + " " +
                                std::to_string(stime) + " 0 0 20 0 3 0\n");
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

TEST(MachineStateTest, ReadsARecordedTree) {
  RecordedTree tree;
  tree.Write("proc/loadavg", "1.50 0.75 0.25 3/120 999\n");
  tree.Stat(100, 50, 800, 10, 3);
  tree.Self(20, 5);
  tree.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
  tree.Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "3000000\n");
  tree.Write("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2000000\n");
  const MachineState state = ReadMachineState(tree.root());
  EXPECT_DOUBLE_EQ(*state.load_average_1m, 1.5);
  EXPECT_EQ(*state.runnable_tasks, 3);
  EXPECT_EQ(state.cpus, 2);
  ASSERT_TRUE(state.cpu);
  EXPECT_EQ(state.cpu->busy, 150);
  EXPECT_EQ(state.cpu->idle, 800);
  EXPECT_EQ(state.cpu->steal, 10);
  EXPECT_EQ(state.own_ticks, 25);
  EXPECT_EQ(state.governor, "performance");
  EXPECT_DOUBLE_EQ(*state.clock_hz, 2.5e9);
  EXPECT_EQ(ToJson(state)["frequency_governor"], "performance");
}

// This VM has no cpufreq: the state says so instead of inventing a governor or a clock.
TEST(MachineStateTest, MissingFilesSayUnavailable) {
  RecordedTree tree;
  tree.Write("proc/empty", "");
  const MachineState state = ReadMachineState(tree.root());
  EXPECT_FALSE(state.cpu);
  EXPECT_FALSE(state.load_average_1m);
  EXPECT_EQ(state.governor.rfind("unavailable: ", 0), 0u) << state.governor;
  const nlohmann::json json = ToJson(state);
  EXPECT_EQ(json["clock_hz"], "unavailable: no scaling_cur_freq");
  EXPECT_TRUE(json["load_average_1m"].is_null());
  EXPECT_TRUE(BusyReasons(LoadBetween(state, state), 2).empty());
}

TEST(MachineStateTest, OtherProcessesAndStealBetweenTwoReadings) {
  RecordedTree tree;
  tree.Stat(100, 0, 100, 0);
  tree.Self(0, 0);
  const MachineState before = ReadMachineState(tree.root());
  // 200 ticks pass: 120 busy of which 40 are ours, 20 steal, 60 idle.
  tree.Stat(220, 0, 160, 20);
  tree.Self(30, 10);
  const MachineState after = ReadMachineState(tree.root());
  const LoadDuring load = LoadBetween(before, after);
  EXPECT_EQ(load.total_ticks, 200);
  EXPECT_DOUBLE_EQ(*load.other_cpu_share, 80.0 / 200);
  EXPECT_DOUBLE_EQ(*load.steal_share, 20.0 / 200);
  const std::vector<std::string> reasons = BusyReasons(load, 2);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("other processes used 40% of the 2 CPUs during this point"),
            std::string::npos)
      << reasons[0];
  EXPECT_NE(reasons[1].find("steal"), std::string::npos) << reasons[1];
}

TEST(MachineStateTest, AnIdleMachineOrATooShortWindowIsNotBusy) {
  RecordedTree tree;
  tree.Stat(100, 0, 100, 0);
  tree.Self(0, 0);
  const MachineState before = ReadMachineState(tree.root());
  // Only this process worked (its ticks may exceed the machine's by rounding).
  tree.Stat(290, 0, 110, 2);
  tree.Self(190, 5);
  EXPECT_TRUE(BusyReasons(LoadBetween(before, ReadMachineState(tree.root())), 2).empty());
  // Three ticks are too few to judge, however busy.
  tree.Stat(103, 0, 100, 0);
  tree.Self(0, 0);
  EXPECT_TRUE(BusyReasons(LoadBetween(before, ReadMachineState(tree.root())), 2).empty());
  // At start: the window before the run.
  tree.Stat(180, 0, 120, 0);
  EXPECT_FALSE(BusyAtStart(before, ReadMachineState(tree.root())).empty());
}

}  // namespace
}  // namespace xpuperf::bench

// Several libtpu runtimes on one host (one process per port, TPU_RUNTIME_METRICS_PORTS=8431,8432):
// each numbers its own devices from 0, so their chips must stay apart, be matched to the PCI chips
// their process holds open, and their per-process distributions say where they came from.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fake_runtime_scenarios.h"
#include "runtime_owner.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/tpu/tpu_backend.h"

namespace xpuperf::tpu {
namespace {

using testing::FakeRuntimeServer;
using testing::Scenario;
namespace m = metrics;
namespace fs = std::filesystem;

constexpr double kGiB = 1024.0 * 1024 * 1024;
const std::string kNoSysfs = std::string(XPUPERF_TEST_DATA_DIR) + "/trees/does-not-exist";

const Reading* Find(const std::vector<Reading>& readings, std::string_view metric,
                    std::string_view device) {
  for (const Reading& r : readings) {
    if (r.metric == metric && r.device == device) return &r;
  }
  return nullptr;
}

double Overall(const std::vector<Reading>& readings, std::string_view metric,
               std::string_view device) {
  const Reading* r = Find(readings, metric, device);
  if (r == nullptr || r->state != ReadingState::kOk) return -1;
  for (const Sample& s : r->samples) {
    if (!s.labels.Has("core")) return s.scalar();
  }
  return -1;
}

struct TwoRuntimes {
  std::unique_ptr<FakeRuntimeServer> first = FakeRuntimeServer::Start(*Scenario("busy"));
  std::unique_ptr<FakeRuntimeServer> second = FakeRuntimeServer::Start(*Scenario("dual-core"));

  Result<std::unique_ptr<Backend>> Open(const std::string& root) const {
    BackendOptions options;
    options.root = root;
    options.explicitly_requested = true;
    TpuBackendConfig config;
    config.ports = {first->port(), second->port()};
    return CreateTpuBackend(options, config);
  }
};

TEST(MultiRuntimeTest, ChipsOfEachRuntimeStayDistinct) {
  TwoRuntimes runtimes;
  auto backend = runtimes.Open(kNoSysfs);
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  // busy: two single-core chips; dual-core: one chip with two cores. Both call theirs chip 0.
  ASSERT_EQ((*backend)->devices().size(), 3u);
  EXPECT_EQ((*backend)->devices()[2].topology.cores, 2);
  auto readings = (*backend)->Collect({});
  EXPECT_EQ(Overall(readings, m::kMemoryUsed, "tpu0"), 4 * kGiB);  // not overwritten by 10 GiB
  EXPECT_EQ(Overall(readings, m::kMemoryUsed, "tpu1"), 8 * kGiB);
  EXPECT_EQ(Overall(readings, m::kMemoryUsed, "tpu2"), 40 * kGiB);  // 10 + 30 of dual-core
  EXPECT_EQ(Overall(readings, m::kDutyCycle, "tpu0"), 75.5);
  EXPECT_EQ(Overall(readings, m::kDutyCycle, "tpu2"), 70);  // mean of its cores 90 and 50
}

TEST(MultiRuntimeTest, DistributionsOfTwoProcessesAreNotAdded) {
  auto first = FakeRuntimeServer::Start(*Scenario("busy"));
  auto second = FakeRuntimeServer::Start(*Scenario("busy"));
  BackendOptions options;
  options.root = kNoSysfs;
  TpuBackendConfig config;
  config.ports = {first->port(), second->port()};
  auto backend = CreateTpuBackend(options, config);
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  ASSERT_EQ((*backend)->devices().size(), 4u);
  auto readings =
      (*backend)->Collect({std::string(m::kTransferLatency), std::string(m::kOpExecutionTime)});
  // Each runtime's latencies on its own first chip, labelled with the runtime, counts not summed.
  for (const auto& [device, port] : {std::pair{"tpu0", first->port()}, {"tpu2", second->port()}}) {
    const Reading* latency = Find(readings, m::kTransferLatency, device);
    ASSERT_NE(latency, nullptr) << device;
    ASSERT_EQ(latency->state, ReadingState::kOk) << latency->reason;
    ASSERT_FALSE(latency->samples.empty());
    for (const Sample& s : latency->samples) {
      EXPECT_EQ(s.labels.Get("runtime"), "localhost:" + std::to_string(port));
    }
    EXPECT_EQ(latency->samples[0].labels.Get("buffer_size"), "1MB+");
    EXPECT_EQ(latency->samples[0].distribution().count, 100u);
    const Reading* hlo = Find(readings, m::kOpExecutionTime, device);
    ASSERT_NE(hlo, nullptr);
    EXPECT_EQ(hlo->samples.at(0).distribution().count, 100u);
    EXPECT_EQ(hlo->samples.at(0).labels.Get("runtime"), "localhost:" + std::to_string(port));
  }
  const Reading* elsewhere = Find(readings, m::kTransferLatency, "tpu3");
  ASSERT_NE(elsewhere, nullptr);
  EXPECT_EQ(elsewhere->state, ReadingState::kNoData);
  EXPECT_EQ(elsewhere->reason, "transfer latencies are measured per runtime process; see tpu2");
}

// A host tree: the four v4 chips of trees/v4-4chip, pid 100 holding accel2 and accel3 and
// listening on `port_a`, pid 200 holding accel0 and accel1 and listening on `port_b`.
fs::path HostTree(int port_a, int port_b) {
  const fs::path root =
      fs::temp_directory_path() / ("xpuperf-multi-runtime-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "proc" / "net");
  fs::copy(std::string(XPUPERF_TEST_DATA_DIR) + "/trees/v4-4chip/sys", root / "sys",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::ofstream tcp(root / "proc" / "net" / "tcp");
  tcp << "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
         "timeout inode\n";
  char line[200];
  std::snprintf(line, sizeof(line),
                "   0: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000     "
                "0        0 5001 1 0000000000000000 100 0 0 10 0\n",
                port_a);
  tcp << line;
  std::snprintf(line, sizeof(line),
                "   1: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000     "
                "0        0 5002 1 0000000000000000 100 0 0 10 0\n",
                port_b);
  tcp << line;
  tcp.close();
  auto holds = [&](int pid, std::vector<std::string> targets) {
    const fs::path fd = root / "proc" / std::to_string(pid) / "fd";
    fs::create_directories(fd);
    for (size_t i = 0; i < targets.size(); ++i)
      fs::create_symlink(targets[i], fd / std::to_string(i));
  };
  holds(100, {"/dev/accel2", "/dev/accel3", "socket:[5001]"});
  holds(200, {"socket:[5002]", "/dev/accel0", "/dev/accel1"});
  return root;
}

TEST(MultiRuntimeTest, ListeningPidFromProcNetTcp) {
  const fs::path root = HostTree(8431, 8432);
  EXPECT_EQ(ListeningPid(root.string(), 8431), 100);
  EXPECT_EQ(ListeningPid(root.string(), 8432), 200);
  EXPECT_EQ(ListeningPid(root.string(), 8433), std::nullopt);
  EXPECT_EQ(ListeningPid(kNoSysfs, 8431), std::nullopt);
  fs::remove_all(root);
}

TEST(MultiRuntimeTest, RuntimesAreMatchedToTheChipsTheirProcessHolds) {
  TwoRuntimes runtimes;
  const fs::path root = HostTree(runtimes.first->port(), runtimes.second->port());
  auto backend = runtimes.Open(root.string());
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  ASSERT_EQ((*backend)->devices().size(), 4u);
  auto readings =
      (*backend)->Collect({std::string(m::kMemoryUsed), std::string(m::kTransferLatency)});
  // busy (pid 100) drives accel2 and accel3 = tpu2, tpu3; dual-core (pid 200) accel0 = tpu0.
  EXPECT_EQ(Overall(readings, m::kMemoryUsed, "tpu2"), 4 * kGiB);
  EXPECT_EQ(Overall(readings, m::kMemoryUsed, "tpu3"), 8 * kGiB);
  EXPECT_EQ(Overall(readings, m::kMemoryUsed, "tpu0"), 40 * kGiB);
  EXPECT_EQ(Find(readings, m::kMemoryUsed, "tpu1")->state, ReadingState::kNoData);
  const Reading* latency = Find(readings, m::kTransferLatency, "tpu2");
  ASSERT_NE(latency, nullptr);
  ASSERT_EQ(latency->state, ReadingState::kOk) << latency->reason;
  EXPECT_EQ(latency->samples.at(0).labels.Get("pid"), "100");
  fs::remove_all(root);
}

}  // namespace
}  // namespace xpuperf::tpu

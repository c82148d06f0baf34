// host_transfer: names, byte counting, NUMA node lists, the CPU engine's copies and verification,
// the pinned-memory failure path and small real runs.
#include "xpuperf/bench/host_transfer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "xpuperf/bench/transfer.h"

namespace xpuperf::bench {
namespace {

namespace fs = std::filesystem;

TEST(TransferNamesTest, RoundTripAndRejectUnknown) {
  for (CopyDirection d : {CopyDirection::kHostToDevice, CopyDirection::kDeviceToHost,
                          CopyDirection::kBidirectional, CopyDirection::kDeviceToDevice}) {
    auto parsed = ParseCopyDirection(CopyDirectionName(d));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, d);
  }
  EXPECT_EQ(CopyDirectionName(CopyDirection::kBidirectional), "bidir");
  EXPECT_EQ(*ParseHostMemoryKind("pinned"), HostMemoryKind::kPinned);
  EXPECT_EQ(*ParseHostMemoryKind("pageable"), HostMemoryKind::kPageable);
  auto bad = ParseCopyDirection("h2h");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("h2d, d2h, bidir, d2d"), std::string::npos);
  EXPECT_FALSE(ParseHostMemoryKind("locked").ok());
}

TEST(TransferFormulaTest, BytesCountedPerDirection) {
  EXPECT_DOUBLE_EQ(TransferBytesCounted(CopyDirection::kHostToDevice, 1000), 1000);
  EXPECT_DOUBLE_EQ(TransferBytesCounted(CopyDirection::kDeviceToHost, 1000), 1000);
  EXPECT_DOUBLE_EQ(TransferBytesCounted(CopyDirection::kBidirectional, 1000), 2000);
  EXPECT_DOUBLE_EQ(TransferBytesCounted(CopyDirection::kDeviceToDevice, 1000), 2000);
  EXPECT_EQ(TransferMetricName(CopyDirection::kDeviceToHost, false), "d2h_bandwidth");
  EXPECT_EQ(TransferMetricName(CopyDirection::kBidirectional, true), "bidir_latency");
  EXPECT_EQ(kTransferLatencyMaxBytes, 65536u);
}

TEST(NumaNodeListTest, ParsesKernelListFormat) {
  EXPECT_EQ(*ParseNodeList("0"), std::vector<int>{0});
  EXPECT_EQ(*ParseNodeList("0-1,4\n"), (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(*ParseNodeList("2,5-7"), (std::vector<int>{2, 5, 6, 7}));
  EXPECT_TRUE(ParseNodeList("")->empty());
  for (const char* bad : {"a", "1-", "3-1", "1,,2", "-1", "0x1"}) {
    EXPECT_FALSE(ParseNodeList(bad).ok()) << bad;
  }
}

// A fake /sys with the given online node list; node N's cpulist is `cpus`.
class FakeSysfs {
 public:
  FakeSysfs(const std::string& online, int nodes, const std::string& cpus) {
    root_ = fs::temp_directory_path() /
            ("xpuperf_numa_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    const fs::path node_dir = root_ / "sys/devices/system/node";
    fs::create_directories(node_dir);
    std::ofstream(node_dir / "online") << online << "\n";
    for (int n = 0; n < nodes; ++n) {
      fs::create_directories(node_dir / ("node" + std::to_string(n)));
      std::ofstream(node_dir / ("node" + std::to_string(n)) / "cpulist") << cpus << "\n";
    }
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  std::string root() const { return root_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path root_;
};

TEST(NumaNodeListTest, ReadsOnlineNodesUnderRoot) {
  const FakeSysfs sysfs("0-1", 2, "0");
  EXPECT_EQ(OnlineNumaNodes(sysfs.root()), (std::vector<int>{0, 1}));
  EXPECT_TRUE(OnlineNumaNodes("/nonexistent-root").empty());
}

CpuTransferOptions OneThread() {
  CpuTransferOptions options;
  options.threads = 1;
  options.device_node = -1;
  return options;
}

TEST(CpuTransferEngineTest, FillVerifyRoundTripAndCorruptedByte) {
  auto engine = MakeCpuTransferEngine(OneThread());
  for (size_t bytes : {size_t{1}, size_t{7}, size_t{4096}, (size_t{1} << 20) + 3}) {
    auto buffer = engine->AllocateHost(bytes, HostMemoryKind::kPageable, -1);
    ASSERT_TRUE(buffer.ok()) << buffer.error().message;
    ASSERT_TRUE(engine->Fill(**buffer, 42).ok());
    EXPECT_TRUE(engine->Verify(**buffer, 42).ok()) << bytes;
    EXPECT_FALSE(engine->Verify(**buffer, 43).ok()) << bytes;  // another seed's pattern
    const size_t offset = bytes / 2;
    static_cast<uint8_t*>((*buffer)->data())[offset] ^= 0x10;
    Status status = engine->Verify(**buffer, 42);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::kInternal);
    EXPECT_NE(status.error().message.find("byte " + std::to_string(offset) + " of"),
              std::string::npos)
        << status.error().message;
  }
}

TEST(CpuTransferEngineTest, CopiesSmallLargeAndConcurrent) {
  CpuTransferOptions options;
  options.threads = 2;
  auto engine = MakeCpuTransferEngine(options);
  for (size_t bytes : {size_t{8}, size_t{65536}, (size_t{3} << 20) + 5}) {
    auto host = engine->AllocateHost(bytes, HostMemoryKind::kPageable, -1);
    auto device = engine->AllocateDevice(bytes);
    auto device2 = engine->AllocateDevice(bytes);
    auto host2 = engine->AllocateHost(bytes, HostMemoryKind::kPageable, -1);
    ASSERT_TRUE(host.ok() && device.ok() && device2.ok() && host2.ok());
    EXPECT_TRUE((*device)->on_device());
    EXPECT_FALSE((*host)->on_device());
    ASSERT_TRUE(engine->Fill(**host, 1).ok());
    ASSERT_TRUE(engine->Fill(**device, 3).ok());
    ASSERT_TRUE(engine->EnqueueCopy(**device, **host, bytes).ok());
    EXPECT_TRUE(engine->Verify(**device, 1).ok()) << bytes;
    ASSERT_TRUE(engine->Fill(**device2, 2).ok());
    ASSERT_TRUE(engine->Fill(**host2, 3).ok());
    ASSERT_TRUE(engine->Fill(**device, 3).ok());
    ASSERT_TRUE(engine->EnqueueConcurrentCopies(**device, **host, **host2, **device2, bytes).ok());
    EXPECT_TRUE(engine->Verify(**device, 1).ok()) << bytes;
    EXPECT_TRUE(engine->Verify(**host2, 2).ok()) << bytes;
    Status too_big = engine->EnqueueCopy(**device, **host, bytes + 1);
    ASSERT_FALSE(too_big.ok());
    EXPECT_EQ(too_big.error().code, ErrorCode::kInvalidArgument);
  }
}

CpuTransferOptions FailingLock() {
  CpuTransferOptions options = OneThread();
  options.lock = [](const void*, size_t) {
    errno = ENOMEM;
    return -1;
  };
  return options;
}

TEST(CpuTransferEngineTest, PinnedSaysWhyWhenMlockFails) {
  auto engine = MakeCpuTransferEngine(FailingLock());
  auto pinned = engine->AllocateHost(4096, HostMemoryKind::kPinned, -1);
  ASSERT_FALSE(pinned.ok());
  EXPECT_EQ(pinned.error().code, ErrorCode::kUnsupported);
  const std::string expected =
      std::string("unsupported: mlock failed: ") + std::strerror(ENOMEM) + ", RLIMIT_MEMLOCK=";
  EXPECT_EQ(pinned.error().message.substr(0, expected.size()), expected) << pinned.error().message;
  EXPECT_TRUE(engine->AllocateHost(4096, HostMemoryKind::kPageable, -1).ok());
}

Device CpuDevice() {
  Device device;
  device.backend = "cpu";
  device.id = "cpu0";
  return device;
}

TransferEngineFactory FactoryFor(CpuTransferOptions options) {
  return [options](const Device&, int threads) -> Result<std::unique_ptr<TransferEngine>> {
    CpuTransferOptions copy = options;
    if (threads > 0) copy.threads = threads;
    return MakeCpuTransferEngine(copy);
  };
}

TEST(HostTransferBenchmarkTest, PinnedPointIsUnsupportedWithTheReason) {
  auto benchmark = MakeHostTransferBenchmark(FactoryFor(FailingLock()));
  const Device device = CpuDevice();
  Status pinned = benchmark->CanRun(device, {{"direction", "h2d"}, {"host_memory", "pinned"}});
  ASSERT_FALSE(pinned.ok());
  EXPECT_EQ(pinned.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(pinned.error().message.find("mlock failed"), std::string::npos);
  EXPECT_TRUE(benchmark->CanRun(device, {{"direction", "h2d"}, {"host_memory", "pageable"}}).ok());
  // d2d uses no host memory, so the lock is never needed.
  EXPECT_TRUE(benchmark->CanRun(device, {{"direction", "d2d"}, {"host_memory", "pinned"}}).ok());
}

TEST(HostTransferBenchmarkTest, BadPointsAreUsageErrors) {
  auto benchmark = MakeHostTransferBenchmark(FactoryFor(OneThread()));
  Device device = CpuDevice();
  for (const nlohmann::json& point :
       {nlohmann::json{{"direction", "sideways"}}, nlohmann::json{{"bytes", 0}},
        nlohmann::json{{"bytes", "many"}}, nlohmann::json{{"placement", "far"}},
        nlohmann::json{{"host_memory", 3}}}) {
    Status status = benchmark->CanRun(device, point);
    ASSERT_FALSE(status.ok()) << point.dump();
    EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument) << point.dump();
  }
  device.memory_bytes = uint64_t{1} << 30;  // 4 bidir buffers of 256 MiB > half of 1 GiB
  Status too_big = benchmark->CanRun(device, {{"direction", "bidir"}, {"bytes", 256 << 20}});
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.error().message.find("do not fit"), std::string::npos);
}

TEST(HostTransferBenchmarkTest, RemoteNeedsASecondNode) {
  const FakeSysfs one_node("0", 1, "0");
  auto benchmark =
      MakeHostTransferBenchmark(FactoryFor(OneThread()), "host_transfer", one_node.root());
  Status remote = benchmark->CanRun(CpuDevice(), {{"placement", "remote"}});
  ASSERT_FALSE(remote.ok());
  EXPECT_EQ(remote.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(remote.error().message.find("second NUMA node"), std::string::npos);
}

class HostTransferRunTest : public ::testing::Test {
 protected:
  HostTransferRunTest() {
    context_.device = &device_;
    context_.queue = &queue_;
    context_.threads = 2;
    context_.sampling = {0, 2, 0.001, int64_t{1} << 30};
    context_.sampling.max_point_seconds = 0;  // exactly the 2 samples: no adaptive part
  }
  Device device_ = CpuDevice();
  HostQueue queue_;
  RunContext context_;
};

TEST_F(HostTransferRunTest, LargeCopyReportsBandwidthAndSmallLatency) {
  auto benchmark = MakeHostTransferBenchmark(FactoryFor(CpuTransferOptions{}));
  auto large = benchmark->Run(
      {{"direction", "h2d"}, {"host_memory", "pageable"}, {"bytes", 4 << 20}}, context_);
  ASSERT_TRUE(large.ok()) << large.error().message;
  ASSERT_EQ(large->size(), 1u);
  const Measurement& bandwidth = large->front();
  EXPECT_EQ(bandwidth.metric, "h2d_bandwidth");
  EXPECT_EQ(bandwidth.unit, "GB/s");
  EXPECT_GT(bandwidth.value, 0);
  EXPECT_DOUBLE_EQ(bandwidth.bytes_per_repetition, 4 << 20);
  EXPECT_EQ(bandwidth.parameters["host_memory"], "pageable");
  EXPECT_EQ(bandwidth.parameters["placement"], "local");
  EXPECT_EQ(bandwidth.parameters["size"], "4 MiB");
  EXPECT_EQ(bandwidth.sample_seconds.size(), 2u);
  EXPECT_NE(bandwidth.parameters["engine"].get<std::string>().find("cpu memcpy"),
            std::string::npos);

  auto small = benchmark->Run({{"direction", "bidir"}, {"bytes", 64}}, context_);
  ASSERT_TRUE(small.ok()) << small.error().message;
  const Measurement& latency = small->front();
  EXPECT_EQ(latency.metric, "bidir_latency");
  EXPECT_EQ(latency.unit, "us");
  EXPECT_DOUBLE_EQ(latency.bytes_per_repetition, 128);
  EXPECT_DOUBLE_EQ(latency.value, latency.statistics.median * 1e6);
  EXPECT_EQ(latency.parameters["size"], "64 B");

  auto d2d = benchmark->Run({{"direction", "d2d"}, {"bytes", 2 << 20}}, context_);
  ASSERT_TRUE(d2d.ok()) << d2d.error().message;
  EXPECT_EQ(d2d->front().metric, "d2d_bandwidth");
  EXPECT_DOUBLE_EQ(d2d->front().bytes_per_repetition, 4 << 20);
  EXPECT_EQ(d2d->front().parameters["host_memory"], "none");
}

TEST_F(HostTransferRunTest, RemotePlacementUsesAnotherNode) {
  // Two nodes in a fake sysfs; the engine's device node is 0, so remote host buffers go to
  // node 1 (mbind may refuse a node this machine lacks; first touch from node 1's CPUs then).
  const FakeSysfs two_nodes("0-1", 2, "0");
  CpuTransferOptions options;
  options.device_node = 0;
  options.root = two_nodes.root();
  auto benchmark =
      MakeHostTransferBenchmark(FactoryFor(options), "host_transfer", two_nodes.root());
  const nlohmann::json point = {
      {"direction", "d2h"}, {"bytes", 4096}, {"placement", "remote"}, {"host_memory", "pageable"}};
  ASSERT_TRUE(benchmark->CanRun(device_, point).ok());
  auto result = benchmark->Run(point, context_);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->front().parameters["host_node"], 1);
  EXPECT_EQ(result->front().parameters["device_node"], 0);
}

// Delegates to the CPU engine but flips one byte of every copy's destination.
class CorruptingEngine final : public TransferEngine {
 public:
  CorruptingEngine() : inner_(MakeCpuTransferEngine(OneThread())) {}
  std::string name() const override { return "corrupting"; }
  Result<std::unique_ptr<TransferBuffer>> AllocateHost(size_t bytes, HostMemoryKind kind,
                                                       int node) override {
    return inner_->AllocateHost(bytes, kind, node);
  }
  Result<std::unique_ptr<TransferBuffer>> AllocateDevice(size_t bytes) override {
    return inner_->AllocateDevice(bytes);
  }
  Status Fill(TransferBuffer& buffer, uint64_t seed) override { return inner_->Fill(buffer, seed); }
  Status Verify(TransferBuffer& buffer, uint64_t seed) override {
    return inner_->Verify(buffer, seed);
  }
  Status EnqueueCopy(TransferBuffer& dst, TransferBuffer& src, size_t bytes) override {
    XPUPERF_RETURN_IF_ERROR(inner_->EnqueueCopy(dst, src, bytes));
    static_cast<uint8_t*>(dst.data())[bytes - 1] ^= 1;
    return Status::Ok();
  }
  Status EnqueueConcurrentCopies(TransferBuffer& dst1, TransferBuffer& src1, TransferBuffer& dst2,
                                 TransferBuffer& src2, size_t bytes) override {
    return inner_->EnqueueConcurrentCopies(dst1, src1, dst2, src2, bytes);
  }
  ExecutionQueue& queue() override { return inner_->queue(); }

 private:
  std::unique_ptr<TransferEngine> inner_;
};

TEST_F(HostTransferRunTest, CorruptedCopyFailsVerification) {
  auto benchmark =
      MakeHostTransferBenchmark([](const Device&, int) -> Result<std::unique_ptr<TransferEngine>> {
        return std::unique_ptr<TransferEngine>(std::make_unique<CorruptingEngine>());
      });
  auto result = benchmark->Run({{"direction", "h2d"}, {"bytes", 1000}}, context_);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kInternal);
  EXPECT_NE(result.error().message.find("byte 999 of 1000"), std::string::npos)
      << result.error().message;
}

}  // namespace
}  // namespace xpuperf::bench

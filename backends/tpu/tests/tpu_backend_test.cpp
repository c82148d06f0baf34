#include "xpuperf/tpu/tpu_backend.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fake_runtime_scenarios.h"
#include "find_reading.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::tpu {
namespace {

using testing::FakeRuntimeServer;
using testing::Find;
using testing::Scenario;
namespace m = metrics;

const std::string kTrees = std::string(XPUPERF_TEST_DATA_DIR) + "/trees";
// A root with no PCI directory: devices can only come from the runtime.
const std::string kNoSysfs = std::string(XPUPERF_TEST_DATA_DIR) + "/trees/does-not-exist";
constexpr uint64_t kGiB = uint64_t{1} << 30;

struct Opened {
  std::unique_ptr<FakeRuntimeServer> server;
  Result<std::unique_ptr<Backend>> backend = MakeError(ErrorCode::kInternal, "not opened");
};

Opened OpenWithScenario(std::string_view scenario, std::string root = kNoSysfs,
                        bool explicitly = true,
                        std::chrono::milliseconds deadline = std::chrono::milliseconds(1000)) {
  Opened o;
  o.server = FakeRuntimeServer::Start(*Scenario(scenario));
  BackendOptions options;
  options.root = std::move(root);
  options.explicitly_requested = explicitly;
  TpuBackendConfig config;
  config.ports = {o.server->port()};
  config.deadline = deadline;
  o.backend = CreateTpuBackend(options, config);
  return o;
}

// A loopback port nothing listens on: bind a server, then shut it down.
int ClosedPort() {
  auto server = FakeRuntimeServer::Start(*Scenario("empty"));
  int port = server->port();
  server.reset();
  return port;
}

TEST(TpuBackendTest, DevicesComeFromTheRuntimeWhenSysfsHasNone) {
  Opened o = OpenWithScenario("busy");
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().ToString();
  const auto& devices = (*o.backend)->devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].id, "tpu0");
  EXPECT_EQ(devices[1].id, "tpu1");
  EXPECT_EQ(devices[0].backend, "tpu");
  EXPECT_EQ(devices[0].vendor, "Google");
  EXPECT_EQ(devices[0].memory_bytes, 16 * kGiB);
}

TEST(TpuBackendTest, GaugesMapOntoTheCatalog) {
  Opened o = OpenWithScenario("busy");
  ASSERT_TRUE(o.backend.ok());
  auto readings = (*o.backend)->Collect({});
  EXPECT_EQ(Find(readings, m::kMemoryTotal, "tpu1").Overall()->scalar(), 16.0 * kGiB);
  EXPECT_EQ(Find(readings, m::kMemoryUsed, "tpu0").Overall()->scalar(), 4.0 * kGiB);
  EXPECT_EQ(Find(readings, m::kMemoryUsed, "tpu1").Overall()->scalar(), 8.0 * kGiB);
  EXPECT_EQ(Find(readings, m::kDutyCycle, "tpu0").Overall()->scalar(), 75.5);
  EXPECT_EQ(Find(readings, m::kDutyCycle, "tpu0").samples.size(), 1u);  // single-core chip
  EXPECT_EQ(Find(readings, m::kMemoryBandwidthUtilization, "tpu1").Overall()->scalar(), 5);
  EXPECT_EQ(Find(readings, m::kIdleDuration, "tpu0").Overall()->scalar(), 0);
  EXPECT_EQ(Find(readings, m::kIdleDuration, "tpu1").Overall()->scalar(), 42);
  EXPECT_EQ(Find(readings, m::kQueueSize, "tpu0").Overall()->scalar(), 3);  // "0" ordinal
  EXPECT_EQ(Find(readings, m::kQueueSize, "tpu1").Overall()->scalar(), 1);  // int ordinal
  EXPECT_EQ(Find(readings, m::kDutyCycle, "tpu0").source, "runtime");
  // Without the SDK (the config asks for none), its metrics say so.
  const Reading& tensor = Find(readings, m::kTensorCoreUtilization, "tpu0");
  EXPECT_EQ(tensor.state, ReadingState::kUnsupported);
  EXPECT_NE(tensor.reason.find("libtpu's SDK is not read"), std::string::npos) << tensor.reason;
}

TEST(TpuBackendTest, HloExecutionTimePercentilesInSeconds) {
  Opened o = OpenWithScenario("busy");
  ASSERT_TRUE(o.backend.ok());
  auto readings = (*o.backend)->Collect({std::string(m::kOpExecutionTime)});
  const Reading& r = Find(readings, m::kOpExecutionTime, "tpu0");
  ASSERT_EQ(r.state, ReadingState::kOk);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].labels.Get("op"), "hlo");
  const Distribution& d = r.samples[0].distribution();
  EXPECT_EQ(d.count, 100u);
  EXPECT_NEAR(*d.Percentile(0.5), 384e-6, 1e-15);
  EXPECT_NEAR(*d.Percentile(0.9), 512e-6, 1e-15);
  EXPECT_NEAR(*d.Percentile(0.95), 768e-6, 1e-15);
  EXPECT_NEAR(*d.Percentile(0.999), 972.8e-6, 1e-15);
  // The observed extremes the runtime sent, not the bucket edges 128 and 1024 us.
  EXPECT_NEAR(d.min, 130e-6, 1e-15);
  EXPECT_NEAR(d.max, 1000e-6, 1e-15);
  const Distribution& explicit_buckets =
      Find(readings, m::kOpExecutionTime, "tpu1").samples.at(0).distribution();
  // 600 us by interpolation, more than the runtime ever observed (590 us).
  EXPECT_NEAR(*explicit_buckets.Percentile(0.9), 590e-6, 1e-15);
}

TEST(TpuBackendTest, TransferLatenciesSumSeriesPerBufferSize) {
  Opened o = OpenWithScenario("busy");
  ASSERT_TRUE(o.backend.ok());
  auto readings = (*o.backend)->Collect({std::string(m::kTransferLatency)});
  const Reading& r = Find(readings, m::kTransferLatency, "tpu0");
  ASSERT_EQ(r.state, ReadingState::kOk);
  ASSERT_EQ(r.samples.size(), 3u);
  EXPECT_EQ(r.samples[0].labels.Get("type"), "dcn");
  EXPECT_EQ(r.samples[0].labels.Get("buffer_size"), "1MB+");
  EXPECT_EQ(r.samples[1].labels.Get("buffer_size"), "8MB+");
  const Distribution& merged = r.samples[1].distribution();
  EXPECT_EQ(merged.count, 20u);
  EXPECT_NEAR(*merged.Percentile(0.5), 40000e-6, 1e-12);
  EXPECT_NEAR(*merged.Percentile(0.9), 88000e-6, 1e-12);
  EXPECT_NEAR(*merged.Percentile(0.95), 94000e-6, 1e-12);
  EXPECT_NEAR(*merged.Percentile(0.999), 94000e-6, 1e-12);
  EXPECT_NEAR(merged.min, 1200e-6, 1e-15);
  EXPECT_NEAR(merged.max, 99000e-6, 1e-15);
  EXPECT_EQ(r.samples[2].labels.Get("type"), "host_to_device");
  EXPECT_NEAR(*r.samples[2].distribution().Percentile(0.95), 125e-6, 1e-15);
  EXPECT_EQ(Find(readings, m::kTransferLatency, "tpu1").state, ReadingState::kNoData);
}

TEST(TpuBackendTest, DualCoreChipHasPerCoreSamples) {
  Opened o = OpenWithScenario("dual-core");
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().ToString();
  ASSERT_EQ((*o.backend)->devices().size(), 1u);
  EXPECT_EQ((*o.backend)->devices()[0].topology.cores, 2);
  EXPECT_EQ((*o.backend)->devices()[0].memory_bytes, 192 * kGiB);
  auto readings = (*o.backend)->Collect({});
  const Reading& duty = Find(readings, m::kDutyCycle, "tpu0");
  ASSERT_EQ(duty.samples.size(), 3u);
  EXPECT_EQ(duty.Overall()->scalar(), 70);  // mean of 90 and 50
  EXPECT_EQ(duty.samples[1].labels.Get("core"), "0");
  EXPECT_EQ(duty.samples[2].scalar(), 50);
  EXPECT_EQ(Find(readings, m::kMemoryUsed, "tpu0").Overall()->scalar(), 40.0 * kGiB);
  const Reading& queue = Find(readings, m::kQueueSize, "tpu0");  // from the runtime status
  ASSERT_EQ(queue.state, ReadingState::kOk);
  EXPECT_EQ(queue.Overall()->scalar(), 0);
  EXPECT_EQ(Find(readings, m::kOpExecutionTime, "tpu0").state, ReadingState::kUnsupported);
}

TEST(TpuBackendTest, ChipsFromSysfsWithRuntimeMetrics) {
  Opened o = OpenWithScenario("dual-core", kTrees + "/tpu7x-2chip");
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().ToString();
  const auto& devices = (*o.backend)->devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].model, "TPU 7x");
  EXPECT_EQ(devices[0].bus_id, "0000:00:04.0");
  auto readings = (*o.backend)->Collect({std::string(m::kDutyCycle)});
  EXPECT_EQ(Find(readings, m::kDutyCycle, "tpu0").Overall()->scalar(), 70);
  const Reading& second = Find(readings, m::kDutyCycle, "tpu1");
  EXPECT_EQ(second.state, ReadingState::kNoData);  // the runtime serves chip 0 only
  EXPECT_NE(second.reason.find("no XLA program"), std::string::npos);
}

TEST(TpuBackendTest, EmptyAnswersAreNoDataNotZero) {
  Opened o = OpenWithScenario("empty", kTrees + "/v5e-8chip");
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().ToString();
  ASSERT_EQ((*o.backend)->devices().size(), 8u);
  auto readings = (*o.backend)->Collect({});
  EXPECT_EQ(Find(readings, m::kMemoryUsed, "tpu3").state, ReadingState::kNoData);
  EXPECT_EQ(Find(readings, m::kOpExecutionTime, "tpu0").state, ReadingState::kNoData);
  const Reading& unserved = Find(readings, m::kMemoryBandwidthUtilization, "tpu0");
  EXPECT_EQ(unserved.state, ReadingState::kUnsupported);
  EXPECT_NE(unserved.reason.find("does not serve tpu.runtime.hbm.utilization.percent"),
            std::string::npos);
}

TEST(TpuBackendTest, EmptyRuntimeWithoutChipsFailsToOpen) {
  Opened o = OpenWithScenario("empty");
  ASSERT_FALSE(o.backend.ok());
  EXPECT_NE(o.backend.error().message.find("reports no device yet"), std::string::npos);
}

TEST(TpuBackendTest, UnavailableServerIsLikeNoServer) {
  Opened o = OpenWithScenario("unavailable");
  ASSERT_FALSE(o.backend.ok());
  EXPECT_EQ(o.backend.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(o.backend.error().message.find("no TPU found: no PCI device with vendor 0x1ae0"),
            std::string::npos);
  EXPECT_NE(o.backend.error().message.find("no libtpu process is serving metrics on"),
            std::string::npos);
}

// A TCP server on loopback that is not gRPC: each connection gets `reply` (nothing: closed at
// once), then is closed. Stops when destroyed.
class NotGrpcServer {
 public:
  explicit NotGrpcServer(std::string reply) : reply_(std::move(reply)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(listener_, 16) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        const int connection = accept(listener_, nullptr, nullptr);
        if (connection < 0) return;  // the listener was shut down
        if (!reply_.empty()) {
          char request[512];
          (void)!recv(connection, request, sizeof(request), 0);
          (void)!send(connection, reply_.data(), reply_.size(), MSG_NOSIGNAL);
        }
        close(connection);
      }
    });
  }
  ~NotGrpcServer() {
    shutdown(listener_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    close(listener_);
  }
  int port() const { return port_; }

 private:
  std::string reply_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(TpuBackendTest, ServerThatIsNotGrpcIsNamedAsSuch) {
  for (const std::string reply :
       {std::string("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"),
        std::string("SSH-2.0-OpenSSH_9.2\r\n"), std::string()}) {
    NotGrpcServer server(reply);
    ASSERT_GT(server.port(), 0);
    BackendOptions options;
    options.root = kNoSysfs;
    options.explicitly_requested = true;
    TpuBackendConfig config;
    config.ports = {server.port()};
    config.deadline = std::chrono::milliseconds(1000);
    auto backend = CreateTpuBackend(options, config);
    ASSERT_FALSE(backend.ok()) << reply;
    const std::string& message = backend.error().message;
    EXPECT_NE(message.find("localhost:" + std::to_string(server.port()) +
                           " accepts connections but is not the TPU runtime's gRPC service"),
              std::string::npos)
        << reply << ": " << message;
    EXPECT_EQ(message.find("no libtpu process"), std::string::npos) << message;
  }
}

TEST(TpuBackendTest, SlowServerHitsTheDeadline) {
  auto script = *Scenario("busy");
  script.delay = std::chrono::milliseconds(600);
  auto server = FakeRuntimeServer::Start(std::move(script));
  BackendOptions options;
  options.root = kTrees + "/v4-4chip";
  TpuBackendConfig config;
  config.ports = {server->port()};
  config.deadline = std::chrono::milliseconds(100);
  auto backend = CreateTpuBackend(options, config);
  ASSERT_TRUE(backend.ok()) << backend.error().ToString();
  auto readings = (*backend)->Collect({});
  // One timed-out listing per Collect (open + this one), not one per metric: counted at the
  // server, not timed (a loaded machine stretches any wall time).
  EXPECT_LE(server->calls(), 2);
  const Reading& used = Find(readings, m::kMemoryUsed, "tpu0");
  EXPECT_EQ(used.state, ReadingState::kUnsupported);
  EXPECT_NE(used.reason.find("did not answer ListSupportedMetrics within 100 ms"),
            std::string::npos)
      << used.reason;
}

TEST(TpuBackendTest, ChipsWithoutServer) {
  BackendOptions options;
  options.root = kTrees + "/v4-4chip";
  TpuBackendConfig config;
  config.ports = {ClosedPort()};
  const std::string expected = "no libtpu process is serving metrics on " +
                               std::to_string(config.ports[0]) +
                               ": start your JAX program, or set TPU_RUNTIME_METRICS_PORTS";
  options.explicitly_requested = true;
  auto strict = CreateTpuBackend(options, config);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().message, expected);

  options.explicitly_requested = false;
  auto lenient = CreateTpuBackend(options, config);
  ASSERT_TRUE(lenient.ok()) << lenient.error().ToString();
  ASSERT_EQ((*lenient)->devices().size(), 4u);
  EXPECT_EQ((*lenient)->devices()[0].model, "TPU v4");
  EXPECT_EQ((*lenient)->devices()[0].memory_bytes, 32 * kGiB);
  EXPECT_EQ((*lenient)->devices()[0].features,
            (std::vector<std::string>{"node:/dev/accel0", "pid:1234"}));
  for (const Reading& r : (*lenient)->Collect({})) {
    EXPECT_NE(r.state, ReadingState::kOk) << r.metric;
    if (r.metric == m::kHostLinkGeneration || r.metric == m::kHostLinkWidth) {
      // sysfs, not the runtime: the recorded v4 tree has no link files.
      EXPECT_EQ(r.reason.rfind("unsupported: ", 0), 0u) << r.reason;
    } else if (r.source == "sdk") {
      EXPECT_NE(r.reason.find("libtpu's SDK is not read"), std::string::npos) << r.reason;
    } else if (r.metric != m::kTransferLatency) {
      EXPECT_EQ(r.reason, expected) << r.metric;
    }
  }
}

// The PCIe link of a chip comes from sysfs, as for AMD and Intel GPUs: current and max generation
// and width of its function 0. The recorded trees hold no link files, so this test writes them
// (synthetic values) into a copy of the 7x tree; a chip known only from the runtime says why it
// has none.
TEST(TpuBackendTest, ThePciLinkOfAChipFromSysfs) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("xpuperf_tpu_link_" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::copy(
      kTrees + "/tpu7x-2chip", root,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  const std::filesystem::path function = root / "sys/bus/pci/devices/0000:00:04.0";
  for (const auto& [file, text] :
       {std::pair{"current_link_speed", "16.0 GT/s PCIe\n"},
        std::pair{"max_link_speed", "32.0 GT/s PCIe\n"}, std::pair{"current_link_width", "8\n"},
        std::pair{"max_link_width", "16\n"}}) {
    std::ofstream(function / file) << text;
  }
  Opened o = OpenWithScenario("dual-core", root.string());
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().ToString();
  auto readings =
      (*o.backend)->Collect({std::string(m::kHostLinkGeneration), std::string(m::kHostLinkWidth)});
  const Reading& generation = Find(readings, m::kHostLinkGeneration, "tpu0");
  ASSERT_EQ(generation.state, ReadingState::kOk) << generation.reason;
  ASSERT_EQ(generation.samples.size(), 2u);
  EXPECT_EQ(generation.samples[0].labels.Get(labels::kType), "current");
  EXPECT_EQ(generation.samples[0].scalar(), 4);
  EXPECT_EQ(generation.samples[1].scalar(), 5);
  const Reading& width = Find(readings, m::kHostLinkWidth, "tpu0");
  ASSERT_EQ(width.samples.size(), 2u);
  EXPECT_EQ(width.samples[0].scalar(), 8);
  EXPECT_EQ(width.samples[1].scalar(), 16);
  const Reading& second = Find(readings, m::kHostLinkWidth, "tpu1");  // no link files
  EXPECT_EQ(second.state, ReadingState::kUnsupported);
  EXPECT_NE(second.reason.find("current_link_speed"), std::string::npos) << second.reason;
  std::filesystem::remove_all(root);

  Opened runtime_only = OpenWithScenario("dual-core");
  ASSERT_TRUE(runtime_only.backend.ok());
  const auto runtime_readings =
      (*runtime_only.backend)->Collect({std::string(m::kHostLinkGeneration)});
  const Reading& none = Find(runtime_readings, m::kHostLinkGeneration, "tpu0");
  EXPECT_EQ(none.reason,
            "unsupported: the chip is known from the TPU runtime only (not in PCI sysfs)");
}

TEST(TpuBackendTest, NothingAtAllIsUnavailable) {
  BackendOptions options;
  options.root = kNoSysfs;
  TpuBackendConfig config;
  config.ports = {ClosedPort()};
  options.explicitly_requested = true;
  auto backend = CreateTpuBackend(options, config);
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(backend.error().message.starts_with(
      "no TPU found: no PCI device with vendor 0x1ae0 under /sys/bus/pci/devices; no libtpu"));
  options.explicitly_requested = false;
  auto quiet = CreateTpuBackend(options, config);
  ASSERT_FALSE(quiet.ok());
  EXPECT_EQ(quiet.error().message,
            "no TPU found: no PCI device with vendor 0x1ae0 under /sys/bus/pci/devices");
}

TEST(TpuBackendTest, RegistersAsTpu) {
  BackendRegistry registry;
  RegisterTpuBackend(registry);
  EXPECT_TRUE(registry.Has("tpu"));
}

}  // namespace
}  // namespace xpuperf::tpu

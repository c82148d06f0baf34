// libtpu's monitoring SDK: its text values, the helper process (against the fake libtpu package in
// tests/fake_libtpu), and the backend's readings from it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "fake_runtime_scenarios.h"
#include "fake_runtime_server.h"
#include "find_reading.h"
#include "sdk_readings.h"
#include "sdk_source.h"
#include "sdk_values.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/tpu/tpu_backend.h"
#include "xpuperf/tpu/tpu_sdk.h"

namespace xpuperf::tpu {
namespace {

namespace m = metrics;
using testing::FakeRuntimeServer;
using testing::Find;
using testing::Scenario;

const std::string kFakeLibtpu = XPUPERF_FAKE_LIBTPU_DIR;
const std::string kTrees = std::string(XPUPERF_TEST_DATA_DIR) + "/trees";

TEST(SdkValuesTest, NumbersPerChipOrCore) {
  const auto v = ParseIndexedNumbers({"0.00", "20.5%", " '100' ", "nan", "inf", "x", ""});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].index, 0u);
  EXPECT_EQ(v[1].value, 20.5);
  EXPECT_EQ(v[2].index, 2u);
  EXPECT_EQ(v[2].value, 100);
}

TEST(SdkValuesTest, NamedValuesAndScores) {
  const auto named = ParseNamedNumbers({"tensorcore_1: 10", "tray1.chip3.ici0.int: 0", "x", ":3"});
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].name, "tensorcore_1");
  EXPECT_EQ(named[0].value, 10);
  EXPECT_EQ(named[1].name, "tray1.chip3.ici0.int");
  EXPECT_EQ(CoreNumber("tensorcore_12"), 12);
  EXPECT_EQ(CoreNumber("7"), 7);
  EXPECT_FALSE(CoreNumber("tensorcore_").has_value());
  const auto scores = ParseIdScores({"0-0", "1-3", "-4", "2-", "99999999999-1", "3-10"});
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[1].index, 1u);
  EXPECT_EQ(scores[1].value, 3);
  EXPECT_EQ(scores[2].value, 10);
}

TEST(SdkValuesTest, SummaryRows) {
  auto rows = ParseSummaryRows({"8MB+, 100.00, 200.00, 300.00, 400.00, 500.00",
                                "[1MB+, 1, 2, 3, 4]", "2MB+-ALL_REDUCE, 1, 2, 3, 4, 5"},
                               true);
  ASSERT_EQ(rows.size(), 2u);  // the four-number row is not guessed at
  EXPECT_EQ(rows[0].key, "8MB+");
  EXPECT_EQ(rows[0].mean, 100);
  EXPECT_EQ(rows[0].p999, 500);
  EXPECT_EQ(rows[1].key, "2MB+-ALL_REDUCE");
  // One row spread over the list, as a list of bare numbers.
  rows = ParseSummaryRows({"100.00", "200.00", "300.00", "400.00", "500.00"}, false);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].p95, 400);
  EXPECT_TRUE(ParseSummaryRows({}, false).empty());
}

// Options with a first-answer deadline (and an interpreter); the rest as by default.
TpuSdkOptions Options(double first_answer_seconds, std::string python = "") {
  TpuSdkOptions options;
  options.python = std::move(python);
  options.first_answer_seconds = first_answer_seconds;
  return options;
}

// The fake libtpu on PYTHONPATH, serving `scenario` (written to a file for the test).
class FakeLibtpu {
 public:
  explicit FakeLibtpu(const std::string& scenario_json) {
    path_ = std::filesystem::temp_directory_path() /
            ("xpuperf-fake-libtpu-" + std::to_string(::getpid()) + "-" + std::to_string(count_++) +
             ".json");
    std::ofstream(path_) << scenario_json;
    ::setenv("PYTHONPATH", kFakeLibtpu.c_str(), 1);
    ::setenv("XPUPERF_FAKE_LIBTPU", path_.c_str(), 1);
  }
  ~FakeLibtpu() {
    ::unsetenv("PYTHONPATH");
    ::unsetenv("XPUPERF_FAKE_LIBTPU");
    std::filesystem::remove(path_);
  }

 private:
  static inline int count_ = 0;
  std::filesystem::path path_;
};

std::string Busy() {
  std::ifstream in(kFakeLibtpu + "/busy.json");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(SdkSourceTest, ReadsEveryMetricLibtpuLists) {
  FakeLibtpu fake(Busy());
  SdkSource source(Options(60));
  auto latest = source.Latest();
  ASSERT_TRUE(latest.ok()) << latest.error().message;
  const SdkSnapshot& s = **latest;
  EXPECT_EQ(s.libtpu_version, "0.0.0+xpuperf.fake");
  ASSERT_GE(s.supported.size(), 10u);
  EXPECT_EQ(s.supported[0], "tensorcore_util");  // libtpu's order
  EXPECT_EQ(s.values.at("tensorcore_util").data, (std::vector<std::string>{"0.00", "100.00"}));
  EXPECT_EQ(s.values.at("idle_duration").error,
            "RuntimeError: vbar control agent not running (fake)");
  EXPECT_EQ(s.descriptions.at("tensorcore_util"), "tensorcore_util (fake)");
}

TEST(SdkSourceTest, SaysWhyWhenLibtpuCannotBeImported) {
  {
    FakeLibtpu fake(R"({"import": "error", "metrics": {}})");
    SdkSource source(Options(60));
    auto latest = source.Latest();
    ASSERT_FALSE(latest.ok());
    EXPECT_NE(latest.error().message.find(
                  "cannot import libtpu's SDK: ImportError: libtpu.so: cannot open shared object "
                  "file (fake) (set XPUPERF_TPU_SDK_PYTHON"),
              std::string::npos)
        << latest.error().message;
  }
  {
    FakeLibtpu fake(R"({"import": "crash", "metrics": {}})");
    SdkSource source(Options(60));
    auto latest = source.Latest();
    ASSERT_FALSE(latest.ok());
    EXPECT_NE(latest.error().message.find("importing libtpu crashed the process (SIGSEGV)"),
              std::string::npos)
        << latest.error().message;
  }
  SdkSource missing(Options(60, "/nonexistent/python3"));
  auto latest = missing.Latest();
  ASSERT_FALSE(latest.ok());
  EXPECT_EQ(latest.error().message,
            "cannot start /nonexistent/python3: No such file or directory (set "
            "XPUPERF_TPU_SDK_PYTHON to a Python that has libtpu)");
}

// A root daemon started in a directory a user can write must not import the user's modules:
// `python -c` would put that directory first on sys.path.
TEST(SdkSourceTest, NeverImportsFromTheWorkingDirectory) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf-planted-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "libtpu");
  std::ofstream(dir / "libtpu" / "__init__.py") << "raise ImportError('planted module ran')\n";
  std::ofstream(dir / "json.py") << "raise SystemExit('planted json ran')\n";
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  SdkSource source(Options(60));
  auto latest = source.Latest();
  std::filesystem::current_path(previous);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(latest.ok());
  EXPECT_EQ(latest.error().message.find("planted"), std::string::npos) << latest.error().message;
  EXPECT_NE(latest.error().message.find("No module named 'libtpu'"), std::string::npos)
      << latest.error().message;
}

// The helper runs from "/", yet relative paths the user gave (PYTHONPATH entries, the
// interpreter) still mean what they meant where xpuperf was started.
TEST(SdkSourceTest, RelativePathsTheUserGaveStillWork) {
  FakeLibtpu fake(Busy());
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf-relative-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "bin");
  std::filesystem::create_directory_symlink(kFakeLibtpu, dir / "fake");
  const std::string python = SdkPython(SdkOptions{});  // python3 from PATH
  std::string resolved;
  for (std::string_view path : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    if (std::filesystem::exists(std::filesystem::path(path) / python)) {
      resolved = (std::filesystem::path(path) / python).string();
      break;
    }
  }
  if (const char* env_path = std::getenv("PATH"); resolved.empty() && env_path != nullptr) {
    std::string_view rest(env_path);
    while (!rest.empty() && resolved.empty()) {
      const std::string_view part = rest.substr(0, rest.find(':'));
      if (std::filesystem::exists(std::filesystem::path(part) / python)) {
        resolved = (std::filesystem::path(part) / python).string();
      }
      rest.remove_prefix(std::min(rest.size(), part.size() + 1));
    }
  }
  ASSERT_FALSE(resolved.empty());
  std::filesystem::create_symlink(resolved, dir / "bin" / "python");
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  ::setenv("PYTHONPATH", "fake", 1);
  SdkSource source(Options(60, "bin/python"));
  auto latest = source.Latest();
  std::filesystem::current_path(previous);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(latest.ok()) << latest.error().message;
  EXPECT_EQ((*latest)->libtpu_version, "0.0.0+xpuperf.fake");
}

// A libtpu that never answers costs one deadline, then every call returns at once with the reason.
TEST(SdkSourceTest, AHungLibtpuCostsOneDeadline) {
  FakeLibtpu fake(R"({"metrics": {"tensorcore_util": {"hang": true}}})");
  SdkSource source(Options(1));
  auto first = source.Latest();
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().message.find("libtpu's SDK did not answer within 1 s"), std::string::npos)
      << first.error().message;
  auto again = source.Latest();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, first.error().message);
  // The listing still names what libtpu listed, with the reason.
  auto listing = ReadTpuSdk(Options(1), kTrees + "/none");
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  ASSERT_EQ(listing->metrics.size(), 1u);
  EXPECT_EQ(listing->metrics[0].state, "unsupported");
  EXPECT_NE(listing->metrics[0].reason.find("did not answer within 1 s"), std::string::npos);
}

TEST(SdkListingTest, EveryMetricWithItsMappingOrWhyNot) {
  FakeLibtpu fake(Busy());
  auto listing = ReadTpuSdk(Options(60), kTrees + "/v4-4chip");
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  std::map<std::string, TpuSdkMetric> by_name;
  for (const TpuSdkMetric& metric : listing->metrics) by_name[metric.name] = metric;
  EXPECT_EQ(by_name["tensorcore_util"].state, "ok");
  EXPECT_EQ(by_name["tensorcore_util"].catalog, m::kTensorCoreUtilization);
  EXPECT_EQ(by_name["tcp_min_rtt"].state, "no_data");  // listed, empty, on a host with chips
  EXPECT_EQ(by_name["idle_duration"].state, "unsupported");
  EXPECT_EQ(by_name["idle_duration"].reason,
            "libtpu's idle_duration: RuntimeError: vbar control agent not running (fake)");
  EXPECT_EQ(by_name["orbax_write_size"].catalog, "");
  EXPECT_NE(by_name["orbax_write_size"].note.find("not a device metric"), std::string::npos);
}

// A libtpu that gives HLO timings under both of its names: one set of statistics, not two.
TEST(SdkReadingsTest, OneMetricUnderTwoNamesCountsOnce) {
  auto snapshot = std::make_shared<SdkSnapshot>();
  snapshot->libtpu_version = "test";
  for (const char* name : {"hlo_execution_timing", "hlo_exec_timing"}) {
    snapshot->supported.emplace_back(name);
    snapshot->values[name].data = {"tensorcore_0, 1, 2, 3, 4, 5"};
  }
  std::vector<Device> devices(1);
  devices[0].id = "tpu0";
  const auto readings =
      SdkReadings(m::kLatencyStatistic, SdkView{snapshot, ""}, devices, 1, 0).value();
  ASSERT_EQ(readings.size(), 1u);
  EXPECT_EQ(readings[0].samples.size(), 5u);  // mean, p50, p90, p95, p999 once
  EXPECT_EQ(FindSdkMapping("tensorcore_utilization")->catalog, "");
  EXPECT_EQ(FindSdkMapping("no_such_metric"), nullptr);
}

struct Opened {
  std::unique_ptr<FakeRuntimeServer> server;
  Result<std::unique_ptr<Backend>> backend = MakeError(ErrorCode::kInternal, "not opened");
};

Opened Open(std::string_view scenario, const std::string& root) {
  Opened o;
  o.server = FakeRuntimeServer::Start(*Scenario(scenario));
  BackendOptions options;
  options.root = root;
  TpuBackendConfig config;
  config.ports = {o.server->port()};
  config.sdk = Options(60);
  o.backend = CreateTpuBackend(options, config);
  return o;
}

TEST(TpuBackendSdkTest, SdkMetricsBesideTheRuntimeService) {
  FakeLibtpu fake(Busy());
  Opened o = Open("busy", kTrees + "/does-not-exist");
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().message;
  const auto readings = (*o.backend)->Collect({});
  const Reading& tensor0 = Find(readings, m::kTensorCoreUtilization, "tpu0");
  ASSERT_EQ(tensor0.state, ReadingState::kOk) << tensor0.reason;
  EXPECT_EQ(tensor0.source, "sdk");
  EXPECT_EQ(tensor0.Overall()->scalar(), 0);
  EXPECT_EQ(Find(readings, m::kTensorCoreUtilization, "tpu1").Overall()->scalar(), 100);
  // The runtime service serves the duty cycle: its value, not the SDK's, and said so.
  EXPECT_EQ(Find(readings, m::kDutyCycle, "tpu0").source, "runtime");
  EXPECT_EQ(Find(readings, m::kThrottleScore, "tpu1").Overall()->scalar(), 3);
  const Reading& links = Find(readings, m::kIciLinkHealth, "tpu0");
  ASSERT_EQ(links.samples.size(), 2u);
  EXPECT_EQ(links.samples[1].labels.Get(labels::kLink), "tray1.chip1.ici1.int");
  EXPECT_EQ(links.samples[1].scalar(), 10);
  EXPECT_EQ(Find(readings, m::kIciLinkHealth, "tpu1").reason,
            "libtpu reports it for the host: see tpu0");
  const Reading& summary = Find(readings, m::kLatencyStatistic, "tpu0");
  bool found = false;
  for (const Sample& s : summary.samples) {
    if (s.labels.Get(labels::kCollective) == "ALL_REDUCE" &&
        s.labels.Get(labels::kStatistic) == "p999") {
      EXPECT_DOUBLE_EQ(s.scalar(), 50e-6);
      EXPECT_EQ(s.labels.Get(labels::kBufferSize), "2MB+");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  const Reading& rate = Find(readings, m::kTcpDeliveryRate, "tpu0");
  ASSERT_EQ(rate.samples.size(), 5u);
  EXPECT_DOUBLE_EQ(rate.samples[0].scalar(), 100e6 / 8);  // mean, 100 Mbps
}

// A runtime that lists none of the gauges: the SDK's values, per chip, with their source.
TEST(TpuBackendSdkTest, TheSdkFillsWhatTheRuntimeDoesNotServe) {
  FakeLibtpu fake(Busy());
  Opened o = Open("empty", kTrees + "/v4-4chip");
  ASSERT_TRUE(o.backend.ok()) << o.backend.error().message;
  const auto readings = (*o.backend)->Collect({std::string(m::kMemoryUsed)});
  const Reading& used1 = Find(readings, m::kMemoryUsed, "tpu1");
  ASSERT_EQ(used1.state, ReadingState::kOk) << used1.reason;
  EXPECT_EQ(used1.source, "sdk");
  EXPECT_EQ(used1.Overall()->scalar(), 8589934592.0);
  // libtpu gave two chips' values: the third chip keeps the runtime's reason.
  const Reading& used2 = Find(readings, m::kMemoryUsed, "tpu2");
  EXPECT_NE(used2.state, ReadingState::kOk);
  EXPECT_EQ(used2.source, "runtime");
}

}  // namespace
}  // namespace xpuperf::tpu

// The built xpuperf against the fake runtime helper binary, the way a user runs it next to a JAX
// program: TPU_RUNTIME_METRICS_PORTS points at the helper's port.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace xpuperf::tpu {
namespace {

using nlohmann::json;

// The fake runtime helper in a child process; killed when this goes out of scope.
class FakeServerProcess {
 public:
  explicit FakeServerProcess(const std::string& scenario) {
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::close(out[0]);
      ::close(out[1]);
      ::execl(XPUPERF_TPU_FAKE_SERVER, XPUPERF_TPU_FAKE_SERVER, scenario.c_str(), "0", nullptr);
      ::_exit(127);
    }
    ::close(out[1]);
    // "port N\n" once it listens.
    std::string line;
    char c = 0;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    if (line.starts_with("port ")) port_ = std::stoi(line.substr(5));
  }
  ~FakeServerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

struct CommandRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// xpuperf ARGS with TPU_RUNTIME_METRICS_PORTS=ports (arguments are fixed test strings).
CommandRun RunXpuperf(const std::string& ports, const std::string& args) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("xpuperf-tpu-e2e-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string command = "TPU_RUNTIME_METRICS_PORTS=" + ports + " " + XPUPERF_EXECUTABLE +
                              " " + args + " >" + (dir / "out").string() + " 2>" +
                              (dir / "err").string();
  CommandRun r;
  const int status = std::system(command.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(dir / "out");
  r.err = Slurp(dir / "err");
  std::filesystem::remove_all(dir);
  return r;
}

const json* FindReading(const json& doc, std::string_view metric, std::string_view device) {
  for (const json& r : doc["readings"]) {
    if (r["metric"] == metric && r["device"] == device) return &r;
  }
  return nullptr;
}

TEST(TpuCliTest, MetricsJsonHasTheServedValues) {
  FakeServerProcess server("busy");
  ASSERT_GT(server.port(), 0);
  CommandRun r =
      RunXpuperf(std::to_string(server.port()), "metrics --backend tpu --json --window 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["id"], "tpu0");
  EXPECT_EQ(doc["devices"][1]["memory_bytes"], 17179869184ull);
  const json* used = FindReading(doc, "memory_used_bytes", "tpu1");
  ASSERT_NE(used, nullptr);
  EXPECT_EQ((*used)["samples"][0]["value"], 8589934592.0);
  EXPECT_EQ((*FindReading(doc, "duty_cycle_percent", "tpu0"))["samples"][0]["value"], 75.5);
  EXPECT_EQ((*FindReading(doc, "queue_size", "tpu0"))["samples"][0]["value"], 3.0);
  const json& hlo = (*FindReading(doc, "op_execution_time_seconds", "tpu0"))["samples"][0];
  EXPECT_EQ(hlo["labels"]["op"], "hlo");
  EXPECT_EQ(hlo["distribution"]["count"], 100);
  EXPECT_NEAR(hlo["distribution"]["p50"].get<double>(), 384e-6, 1e-15);
  EXPECT_NEAR(hlo["distribution"]["p90"].get<double>(), 512e-6, 1e-15);
  EXPECT_NEAR(hlo["distribution"]["p95"].get<double>(), 768e-6, 1e-15);
  EXPECT_NEAR(hlo["distribution"]["p999"].get<double>(), 972.8e-6, 1e-15);
  const json& latency = (*FindReading(doc, "transfer_latency_seconds", "tpu0"))["samples"];
  ASSERT_EQ(latency.size(), 3u);
  EXPECT_EQ(latency[0]["labels"]["buffer_size"], "1MB+");
  EXPECT_NEAR(latency[0]["distribution"]["p50"].get<double>(), 850e-6, 1e-15);
  EXPECT_NEAR(latency[0]["distribution"]["p999"].get<double>(), 9775e-6, 1e-15);
  EXPECT_EQ((*FindReading(doc, "tensorcore_utilization_percent", "tpu0"))["state"], "unsupported");
}

TEST(TpuCliTest, MetricsTableShowsTpuInfoLikeTables) {
  FakeServerProcess server("busy");
  ASSERT_GT(server.port(), 0);
  CommandRun r = RunXpuperf(std::to_string(server.port()), "metrics --backend tpu --window 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row : {
           "tpu0    tpu      TPU        1        1  16.00 GiB",
           "tpu0         75.5%               n/a     4.00 GiB     16.00 GiB     25.0%      3",
           "tpu1         12.2%               n/a     8.00 GiB     16.00 GiB     50.0%      1",
           "tpu0    1MB+ (dcn)              100   2ms  850us  7.75ms  8.88ms  9.78ms",
           "tpu0    8MB+ (dcn)               20  40ms   40ms    88ms    94ms    94ms",
           "tpu0    4MB (host_to_device)     10  80us   75us   125us   125us   125us",
           "tpu0    hlo    100  400us  384us  512us  768us  973us",
           "tpu1    hlo     10  290us  200us  590us  590us  590us",
       }) {
    EXPECT_NE(r.out.find(row), std::string::npos) << "missing row: " << row << "\n" << r.out;
  }
}

TEST(TpuCliTest, TopShowsEachChipAndTheProcessesHoldingIt) {
  FakeServerProcess server("busy");
  ASSERT_GT(server.port(), 0);
  const std::string tree = std::string(XPUPERF_TEST_DATA_DIR) + "/trees/v4-4chip";
  CommandRun r = RunXpuperf(std::to_string(server.port()),
                            "top --plain --count 1 --rate 0.1 --backend tpu --root " + tree);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("0 cores"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 TensorCore, 32.00 GiB HBM, /dev/accel0"), std::string::npos) << r.out;
  // pid 1234 (python3) holds accel0 and accel1, as tpu-info's chip table shows.
  int rows = 0;
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if ((line.starts_with("tpu0") || line.starts_with("tpu1")) &&
        line.find(" 1234 ") != std::string::npos && line.find("python3") != std::string::npos) {
      ++rows;
    }
  }
  EXPECT_EQ(rows, 2) << r.out;
}

// The runtime reports the second chip's TensorCore in error: its core_error_active series carries
// the message's first line, and `health` fails the chip's driver verdict with it.
TEST(TpuCliTest, ACoreInErrorIsASeriesAndAHealthVerdict) {
  FakeServerProcess server("core-error");
  ASSERT_GT(server.port(), 0);
  const std::string port = std::to_string(server.port());
  CommandRun metrics = RunXpuperf(port, "metrics --backend tpu --json --window 0");
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  const json doc = json::parse(metrics.out);
  const json* ok = FindReading(doc, "core_error_active", "tpu0");
  ASSERT_NE(ok, nullptr) << metrics.out;
  EXPECT_EQ((*ok)["samples"][0]["value"], 0.0);
  const json& bad = (*FindReading(doc, "core_error_active", "tpu1"))["samples"][0];
  EXPECT_EQ(bad["value"], 1.0);
  EXPECT_EQ(bad["labels"]["error"], "TensorCore halted: uncorrectable HBM error at 0x3f000");

  CommandRun health = RunXpuperf(port, "health --json --backend tpu --window 0");
  EXPECT_EQ(health.exit_code, 1) << health.err;
  const json verdicts = json::parse(health.out)["verdicts"];
  bool found = false, healthy_chip = false;
  for (const json& v : verdicts) {
    if (v["subsystem"] != "driver") continue;
    if (v["device"] == "tpu1") {
      found = true;
      EXPECT_EQ(v["code"], "TPU_CORE_ERROR");
      EXPECT_EQ(v["action"], "restart_job");
      EXPECT_NE(v["evidence"].get<std::string>().find("core 0: TensorCore halted"),
                std::string::npos)
          << v["evidence"];
    }
    if (v["device"] == "tpu0") healthy_chip = v["status"] == "pass";
  }
  EXPECT_TRUE(found) << health.out;
  EXPECT_TRUE(healthy_chip) << health.out;
}

// libtpu's SDK (the fake package) beside the runtime service: top shows the TPU-Z state and the
// throttling of each chip, health judges the ICI links libtpu scores, metrics --tpu-sdk lists it.
TEST(TpuCliTest, TheSdkInTopHealthAndTheListing) {
  FakeServerProcess server("core-error");
  ASSERT_GT(server.port(), 0);
  const std::string port = std::to_string(server.port());
  const std::string fake = XPUPERF_FAKE_LIBTPU_DIR;
  ::setenv("PYTHONPATH", fake.c_str(), 1);
  ::setenv("XPUPERF_FAKE_LIBTPU", (fake + "/busy.json").c_str(), 1);
  ::setenv("XPUPERF_TPU_SDK_DEADLINE", "60", 1);
  CommandRun top = RunXpuperf(port, "top --plain --count 1 --rate 0.1 --backend tpu");
  CommandRun health = RunXpuperf(port, "health --json --backend tpu --window 0");
  CommandRun listing = RunXpuperf(port, "metrics --tpu-sdk");
  ::unsetenv("PYTHONPATH");
  ::unsetenv("XPUPERF_FAKE_LIBTPU");
  ::unsetenv("XPUPERF_TPU_SDK_DEADLINE");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("tpu0 state: runs deadbeef01, 2 queued"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("tpu1 state: ERROR TensorCore halted"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("throttled 30 %"), std::string::npos) << top.out;
  bool ici = false;
  const json report = json::parse(health.out);
  for (const json& v : report["verdicts"]) {
    if (v["subsystem"] == "interconnect" && v["device"] == "tpu0") {
      ici = true;
      EXPECT_EQ(v["code"], "TPU_ICI_LINK_DOWN");
      EXPECT_EQ(v["evidence"], "tray1.chip1.ici1.int scored 10");
    }
  }
  EXPECT_TRUE(ici) << health.out;
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find("libtpu 0.0.0+xpuperf.fake"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("tpu_throttle_score"), std::string::npos) << listing.out;
}

TEST(TpuCliTest, DevicesListsTheRuntimeChips) {
  FakeServerProcess server("dual-core");
  ASSERT_GT(server.port(), 0);
  CommandRun r = RunXpuperf(std::to_string(server.port()), "devices --backend tpu --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["devices"].size(), 1u);
  EXPECT_EQ(doc["devices"][0]["id"], "tpu0");
  EXPECT_EQ(doc["devices"][0]["vendor"], "Google");
  EXPECT_EQ(doc["devices"][0]["topology"]["cores"], 2);
  CommandRun table = RunXpuperf(std::to_string(server.port()), "devices --backend tpu");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("tpu0"), std::string::npos) << table.out;
}

// A port nothing listens on: bind the helper, then stop it.
int ClosedPort() {
  FakeServerProcess server("empty");
  return server.port();
}

TEST(TpuCliTest, NoServerIsOneLineAndExitOneOnlyWhenAskedFor) {
  const std::string port = std::to_string(ClosedPort());
  CommandRun r = RunXpuperf(port, "metrics --backend tpu --window 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(
      r.err,
      "xpuperf metrics: error: tpu backend: no TPU found: no PCI device with vendor 0x1ae0 under "
      "/sys/bus/pci/devices; no libtpu process is serving metrics on " +
          port + ": start your JAX program, or set TPU_RUNTIME_METRICS_PORTS\n");
  CommandRun all = RunXpuperf(port, "devices --json");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  json doc = json::parse(all.out);
  for (const json& d : doc["devices"]) EXPECT_NE(d["backend"], "tpu");
}

TEST(TpuCliTest, UnavailableServerExitsOne) {
  FakeServerProcess server("unavailable");
  ASSERT_GT(server.port(), 0);
  CommandRun r = RunXpuperf(std::to_string(server.port()), "metrics --backend tpu --window 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no libtpu process is serving metrics on"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace xpuperf::tpu

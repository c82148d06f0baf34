// The real binary against hostile and clumsy input, one test per class of defect with several
// instances each (docs/POLICIES.md): output paths, typed values, signals, inputs that never end,
// gates with nothing to judge, silently wrong parameters, late failures, unbounded options and
// misleading messages.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

namespace fs = std::filesystem;
using testing::RunXpuperf;

const std::string kData = XPUPERF_TEST_DATA_DIR;
const std::string kTrace = kData + "/analyze/base.json";
// A complete shared library that is none of the vendor libraries (and would abort if loaded twice).
const std::string kLibxpuperf = XPUPERF_LIBXPUPERF;

class HostileInputTest : public ::testing::Test {
 public:
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xpuperf-hostile-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  // Entries of the test directory whose name holds ".tmp-" or ".partial-": leftovers.
  int Leftovers() const {
    int count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      count +=
          name.find(".tmp-") != std::string::npos || name.find(".partial-") != std::string::npos;
    }
    return count;
  }
  fs::path dir_;
};

// One line on stderr that names `what`.
void ExpectOneLineNaming(const testing::CommandResult& r, const std::string& what) {
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
}

struct Signalled {
  int exit_code = -1;
  double seconds_after_signal = 0;
  std::string err;
};

// Starts xpuperf, sends `signal` after `delay_seconds`, and waits (at most 20 s) for it to end.
Signalled RunAndSignal(const std::vector<std::string>& args, double delay_seconds, int signal) {
  char err_path[] = "/tmp/xpuperf-signal-err-XXXXXX";
  const int err_fd = mkstemp(err_path);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_RDWR);
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    std::vector<std::string> copy = args;
    std::string exe = XPUPERF_EXECUTABLE;
    std::vector<char*> argv{exe.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    alarm(30);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(delay_seconds));
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, signal);
  int status = 0;
  for (int i = 0; i < 2000; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Signalled result;
  result.seconds_after_signal =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  close(err_fd);
  result.err = HostileInputTest::Read(err_path);
  unlink(err_path);
  return result;
}

std::string Gzip(const std::string& text) {
  z_stream zs{};
  deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A suite of one tiny GEMM point with the given sweep parameters (YAML flow mapping body).
std::string GemmSuite(const std::string& point) {
  return "name: t\nsampling: {warmup_samples: 0, samples: 1, min_sample_seconds: 0.0001}\n"
         "benchmarks:\n  - benchmark: gemm\n    sweep:\n      - {" +
         point + "}\n";
}

// Class 1: every writer follows one policy; devices and links are never replaced.
TEST_F(HostileInputTest, OutputPathsFollowOnePolicy) {
  // A device is written in place.
  auto r = RunXpuperf({"analyze", kTrace, "--html", "/dev/null"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // A full device is an error, and stays a device.
  r = RunXpuperf({"analyze", kTrace, "--html", "/dev/full"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ExpectOneLineNaming(r, "No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // A link is followed and stays a link.
  Write("real.html", "old");
  fs::create_symlink(Path("real.html"), Path("link.html"));
  r = RunXpuperf({"analyze", kTrace, "--html", Path("link.html")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(Path("link.html")));
  EXPECT_NE(Read(Path("real.html")).find("<html"), std::string::npos);
  // A dangling link, a directory and a missing directory are refused before any work.
  fs::create_symlink(Path("nowhere.html"), Path("dangling.html"));
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {Path("dangling.html"), "dangling"},
           {dir_.string(), "is a directory"},
           {Path("no/dir/r.html"), "does not exist"}}) {
    r = RunXpuperf({"analyze", kTrace, "--html", path});
    EXPECT_NE(r.exit_code, 0) << path;
    ExpectOneLineNaming(r, why);
  }
  EXPECT_TRUE(fs::is_symlink(Path("dangling.html")));
  // roofline's two files: a bad second path leaves neither written.
  const std::string results = kData + "/roofline/results-cpu";
  r = RunXpuperf({"roofline", results, "--svg", Path("r.svg"), "--html", dir_.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(Path("r.svg")));
  r = RunXpuperf({"roofline", results, "--svg", "/dev/null"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(Leftovers(), 0);
}

// Class 1, the other writers: record's directory and files, analyze --merged-trace and serve
// --alert-state follow the same policy, checked before the job, the analysis or the daemon starts.
TEST_F(HostileInputTest, EveryWriterChecksItsPathFirst) {
  for (const std::string& out : {std::string("/dev/null"), Write("file", "x")}) {
    auto r = RunXpuperf({"record", "--backend", "cpu", "--out", out, "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
    ExpectOneLineNaming(r, out);
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // A FIFO or a directory where a recording's file goes: refused before the job runs (a FIFO
  // would block the recording forever).
  fs::create_directories(Path("rec"));
  ASSERT_EQ(mkfifo(Path("rec/timeline.csv").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = RunXpuperf(
      {"record", "--backend", "cpu", "--out", Path("rec"), "--", "touch", Path("ran")}, 60);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "timeline.csv");
  fs::remove(Path("rec/timeline.csv"));
  fs::create_directories(Path("rec/summary.json"));
  r = RunXpuperf({"record", "--backend", "cpu", "--out", Path("rec"), "--", "touch", Path("ran")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "summary.json: is a directory");
  EXPECT_FALSE(fs::exists(Path("ran"))) << "the job ran before the output was refused";
  // A FIFO (or a device) where the summary goes would swallow it at the end: refused first.
  fs::remove(Path("rec/summary.json"));
  ASSERT_EQ(mkfifo(Path("rec/summary.json").c_str(), 0600), 0);
  r = RunXpuperf({"record", "--backend", "cpu", "--out", Path("rec"), "--", "touch", Path("ran")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "summary.json: it is a device or FIFO");
  EXPECT_FALSE(fs::exists(Path("ran")));
  fs::remove(Path("rec/summary.json"));

  // analyze --merged-trace: refused before the trace or the recording is read.
  r = RunXpuperf(
      {"analyze", kTrace, "--telemetry", Path("no-recording"), "--merged-trace", dir_.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "is a directory");
  r = RunXpuperf({"analyze", kTrace, "--telemetry", Path("no-recording"), "--merged-trace",
                  Path("no/dir/merged.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "does not exist");

  // serve --alert-state in a missing directory: a usage error, not an error at each evaluation.
  const std::string rules = Write("rules.yml",
                                  "groups:\n  - name: g\n    rules:\n      - alert: Hot\n"
                                  "        expr: xpuperf_temperature_celsius > 1000\n");
  r = RunXpuperf({"serve", "--listen", "127.0.0.1:0", "--rules", rules, "--alert-state",
                  Path("no/dir/state.json")},
                 10);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "--alert-state");
  EXPECT_EQ(r.err.find("listening"), std::string::npos) << r.err;
  EXPECT_EQ(Leftovers(), 0);
}

// Class 2: values of the wrong type or range are one-line errors, never a crash.
TEST_F(HostileInputTest, TypedValuesAreCheckedNotCrashed) {
  for (const auto& [point, key] : std::vector<std::pair<std::string, std::string>>{
           {"m: big", "'m' must be an integer"},
           {"precision: 3", "'precision' must be one of fp64, fp32, bf16, int8"},
           {"m: 64.5", "'m' must be an integer"},
           {"m: -4", "'m' must be between 1"},
           {"m: 99999999999999999999", "'m'"}}) {
    const std::string suite = Write("s.yaml", GemmSuite(point));
    auto r = RunXpuperf({"bench", "run", "--suite", suite, "--out", Path("r")});
    EXPECT_EQ(r.exit_code, 2) << point << ": " << r.err;
    ExpectOneLineNaming(r, key);
    EXPECT_FALSE(fs::exists(Path("r")));
  }
  // A working set beyond memory is refused, not allocated and written through NULL.
  const std::string huge =
      Write("huge.yaml",
            "name: t\nsampling: {samples: 1, min_sample_seconds: 0.0001}\nbenchmarks:\n"
            "  - benchmark: cache_sweep\n    sweep:\n      - {min_kib: 4, max_kib: 1073741824}\n");
  auto r = RunXpuperf({"bench", "run", "--suite", huge, "--out", Path("r")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.err;
  EXPECT_NE(r.err.find("max_kib"), std::string::npos) << r.err;
  // Workload and spec-sheet values of the wrong type.
  const std::string workload = Write("w.yaml", "- {name: a, flops: lots, bytes: 1, time_s: 1}\n");
  r = RunXpuperf({"diagnose", kData + "/roofline/results-cpu", "--workload", workload});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "'flops' is not a number");
}

// How long a stopped command may take after the signal before the test calls it deaf. The
// commands stop within a second on an idle machine, but a test is no speed bar (a loaded 2-core
// machine delays any process by seconds; under AddressSanitizer the binary's start alone takes
// 1.1-1.7 s): each command signalled here would otherwise run for minutes or forever, so a
// generous bound still tells "stopped" from "ignored the signal".
constexpr double kStopSeconds = 15.0;

// Class 3: SIGINT/SIGTERM stop long commands within a second, with 130/143 and no partial output.
TEST_F(HostileInputTest, SignalsStopLongCommandsCleanly) {
  const std::string suite =
      Write("long.yaml",
            // No time cap: the point would otherwise be given up before its samples.
            "name: long\nsampling: {warmup_samples: 0, samples: 100000, min_sample_seconds: 0.05, "
            "time_cap_seconds: 0}\n"
            "benchmarks:\n  - benchmark: gemm\n    sweep:\n      - {m: 64, n: 64, k: 64}\n");
  Signalled bench = RunAndSignal(
      {"bench", "run", "--suite", suite, "--threads", "1", "--out", Path("r")}, 1.5, SIGTERM);
  EXPECT_EQ(bench.exit_code, 143) << bench.err;
  EXPECT_LT(bench.seconds_after_signal, kStopSeconds);
  EXPECT_FALSE(fs::exists(Path("r")));
  EXPECT_EQ(Leftovers(), 0);

  const std::string root = std::string(XPUPERF_CPU_TREES) + "/amd-zen";
  Signalled watch =
      RunAndSignal({"metrics", "--watch", "--rate", "1", "--root", root}, 0.5, SIGINT);
  EXPECT_EQ(watch.exit_code, 130) << watch.err;
  EXPECT_LT(watch.seconds_after_signal, kStopSeconds);

  Signalled top = RunAndSignal({"top", "--rate", "1", "--root", root}, 0.5, SIGTERM);
  EXPECT_EQ(top.exit_code, 143) << top.err;
  EXPECT_LT(top.seconds_after_signal, kStopSeconds);

  // health's sampling window: a minute asked for, stopped at once.
  Signalled health = RunAndSignal({"health", "--window", "60", "--root", root}, 0.5, SIGINT);
  EXPECT_EQ(health.exit_code, 130) << health.err;
  EXPECT_LT(health.seconds_after_signal, kStopSeconds);

  // diag: stopped in whatever test it is in; the tests so far are written, marked incomplete.
  Signalled diag = RunAndSignal(
      {"diag", "-r", "3", "--duration", "600", "--backend", "cpu", "--out", Path("diag")}, 1.0,
      SIGINT);
  EXPECT_EQ(diag.exit_code, 130) << diag.err;
  EXPECT_LT(diag.seconds_after_signal, kStopSeconds);
  EXPECT_NE(Read(Path("diag") + "/diag.json").find("\"complete\": false"), std::string::npos);
}

// Critical: a command never writes over one of its own inputs (the only copy of a trace), by the
// same name, through a symbolic link or a hard link; the input is left byte for byte.
TEST_F(HostileInputTest, AnOutputThatIsAnInputIsRefused) {
  const std::string trace = Write("trace.json", Read(kTrace));
  const std::string original = Read(trace);
  fs::create_symlink(trace, Path("link.json"));
  ASSERT_EQ(::link(trace.c_str(), Path("hard.json").c_str()), 0);
  for (const std::string& output : {trace, Path("link.json"), Path("hard.json")}) {
    for (const std::string& option : {"--html", "--export-chrome"}) {
      auto r = RunXpuperf({"analyze", trace, option, output}, 120);
      EXPECT_EQ(r.exit_code, 2) << option << " " << output << ": " << r.err;
      ExpectOneLineNaming(r, "it is the input");
      EXPECT_EQ(Read(trace), original) << option << " " << output;
    }
  }
  // A rank of a trace directory.
  fs::create_directories(Path("ranks"));
  const std::string rank = Write("ranks/rank-0.json", original);
  auto r = RunXpuperf({"analyze", Path("ranks"), "--html", rank}, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "it is the input");
  EXPECT_EQ(Read(rank), original);
  // An XLA profile exported over itself.
  const std::string xplane =
      Write("p.xplane.pb",
            Read(std::string(XPUPERF_SOURCE_DIR) + "/fuzz/corpus/xplane/tpu-and-host.xplane.pb"));
  const std::string xplane_bytes = Read(xplane);
  r = RunXpuperf({"analyze", xplane, "--export-chrome", xplane}, 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(Read(xplane), xplane_bytes);
  // The other commands that read and write files.
  const std::string results = kData + "/roofline/results-cpu";
  fs::copy(results, Path("run"), fs::copy_options::recursive);
  const std::string jsonl = Read(Path("run/results.jsonl"));
  r = RunXpuperf({"roofline", Path("run"), "--spec", "none", "--html", Path("run/results.jsonl")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "it is the input");
  r = RunXpuperf({"bench", "check", Path("run"), "--spec", kData + "/check/test-sheet.yaml",
                  "--export", Path("run/results.jsonl")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  ExpectOneLineNaming(r, "it is the input");
  EXPECT_EQ(Read(Path("run/results.jsonl")), jsonl);
  // A report next to the inputs is fine (the README writes report.html into the run).
  r = RunXpuperf({"roofline", Path("run"), "--spec", "none", "--html", Path("run/report.html")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Class 4: FIFOs and other non-regular inputs fail at once; gzip bombs stop at the cap.
TEST_F(HostileInputTest, InputsThatNeverEndAreRefused) {
  ASSERT_EQ(mkfifo(Path("trace.json").c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  auto r = RunXpuperf({"analyze", Path("trace.json")}, 60);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ExpectOneLineNaming(r, "FIFO");

  // A FIFO among a directory's rank files is named, not skipped without a word.
  fs::create_directories(Path("ranks"));
  Write("ranks/rank0.json", R"({"traceEvents":[]})");
  ASSERT_EQ(mkfifo(Path("ranks/rank1.json").c_str(), 0600), 0);
  r = RunXpuperf({"analyze", Path("ranks")}, 60);
  EXPECT_NE(r.exit_code, 0) << r.err;
  ExpectOneLineNaming(r, "rank1.json: is a FIFO");

  fs::create_directories(Path("run"));
  ASSERT_EQ(mkfifo(Path("run/results.jsonl").c_str(), 0600), 0);
  r = RunXpuperf({"bench", "check", Path("run"), "--spec", kData + "/check/test-sheet.yaml"}, 10);
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "FIFO");
  r = RunXpuperf({"compare", Path("run"), Path("run"), "--fail-on-regression", "5"}, 10);
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "FIFO");

  // alert test read its file with YAML::LoadFile: a FIFO blocked it forever, deaf to SIGTERM.
  ASSERT_EQ(mkfifo(Path("tests.yml").c_str(), 0600), 0);
  start = std::chrono::steady_clock::now();
  r = RunXpuperf({"alert", "test", Path("tests.yml")}, 60);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ExpectOneLineNaming(r, "FIFO");
  // A test whose evaluation never ends: a zero interval, or years of 1 ms steps.
  Write("rules.yml",
        "groups:\n  - name: g\n    rules:\n      - alert: Hot\n        expr: up > 1\n");
  for (const auto& [header, why] : std::vector<std::pair<std::string, std::string>>{
           {"evaluation_interval: 0s\n", "evaluation_interval must be positive"},
           {"evaluation_interval: 1ms\n", "steps"}}) {
    Write("endless.yml",
          "rule_files: [rules.yml]\n" + header +
              "tests:\n  - interval: 1m\n    input_series:\n"
              "      - {series: 'up', values: '1 2 3'}\n"
              "    alert_rule_test:\n      - {eval_time: 100000d, alertname: Hot}\n");
    start = std::chrono::steady_clock::now();
    r = RunXpuperf({"alert", "test", Path("endless.yml")}, 120);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60)) << header;
    EXPECT_EQ(r.exit_code, 1) << header << r.out << r.err;
    ExpectOneLineNaming(r, why);
  }

  // 64 MiB of one repeated event compress to ~100 KiB; a 4 MiB cap stops it.
  std::string body = "{\"traceEvents\": [";
  const std::string event = "{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},";
  while (body.size() < (size_t{64} << 20)) body += event;
  body += event.substr(0, event.size() - 1) + "]}";
  Write("bomb.json.gz", Gzip(body));
  r = RunXpuperf({"analyze", Path("bomb.json.gz"), "--max-decompressed-bytes", "4MiB"});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "decompresses to more than 4.0 MiB");
  r = RunXpuperf({"analyze", Path("bomb.json.gz"), "--max-decompressed-bytes", "100"});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "decompresses to more than 100 bytes");  // not "0.0 MiB"
  r = RunXpuperf({"--max-decompressed-bytes", "lots", "analyze", Path("bomb.json.gz")});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneLineNaming(r, "--max-decompressed-bytes");
}

// Class 5: a gate with nothing to judge exits 3 and says why.
TEST_F(HostileInputTest, GatesWithNothingToJudgeDoNotPass) {
  fs::create_directories(Path("empty"));
  Write("empty/results.jsonl", "");
  auto r =
      RunXpuperf({"bench", "check", Path("empty"), "--spec", kData + "/check/test-sheet.yaml"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
  ExpectOneLineNaming(r, "nothing to check");

  // Two runs without a metric in common.
  fs::create_directories(Path("other"));
  Write("other/results.jsonl",
        "{\"benchmark\": \"elsewhere\", \"metric\": \"x\", \"value\": 1, \"unit\": \"GB/s\", "
        "\"samples_s\": [1, 1, 1], \"device\": {\"backend\": \"cpu\", \"id\": \"cpu0\", \"model\": "
        "\"m\"}, \"run_id\": \"o\", \"json_schema_version\": 1, \"parameters\": {}}\n");
  r = RunXpuperf({"compare", kData + "/compare/old", Path("other"), "--fail-on-regression", "5"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
  ExpectOneLineNaming(r, "nothing to judge");
  r = RunXpuperf({"compare", Path("empty"), Path("empty"), "--fail-on-regression", "5", "--json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;

  // A promtool test file without tests.
  Write("rules.yml",
        "groups:\n  - name: g\n    rules:\n      - alert: Hot\n        expr: up > 1\n");
  for (const std::string& text : {std::string("rule_files: [rules.yml]\ntests: []\n"),
                                  std::string("rule_files: [rules.yml]\n")}) {
    r = RunXpuperf({"alert", "test", Write("none.yml", text)});
    EXPECT_EQ(r.exit_code, 3) << text << r.out << r.err;
    EXPECT_EQ(r.out.find("SUCCESS"), std::string::npos) << r.out;
    ExpectOneLineNaming(r, "nothing to test");
  }
}

// Class 6: unknown keys and invalid overrides are errors; a record states what ran.
TEST_F(HostileInputTest, ParametersAreNeverSilentlyWrong) {
  const std::string misspelled = Write("typo.yaml", GemmSuite("mm: 64"));
  auto r = RunXpuperf({"bench", "run", "--suite", misspelled, "--out", Path("r")});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneLineNaming(r, "unknown parameter 'mm' (known: precision, library, m, n, k)");
  for (const auto& args : std::vector<std::vector<std::string>>{{"--samples", "0"},
                                                                {"--min-sample-seconds", "-1"},
                                                                {"--min-sample-seconds", "nan"},
                                                                {"--min-sample-seconds", "5"},
                                                                {"--threads", "0"},
                                                                {"--threads", "100000"}}) {
    std::vector<std::string> command = {"bench", "run", "--suite", misspelled, "--out", Path("r")};
    command.insert(command.end(), args.begin(), args.end());
    r = RunXpuperf(command);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1];
    ExpectOneLineNaming(r, args[0]);
  }
  // Workload and spec-sheet typos name the key.
  const std::string workload = Write("w.yaml", "- {name: a, flop: 1e12, bytes: 1e6, time_s: 1}\n");
  r = RunXpuperf({"diagnose", kData + "/roofline/results-cpu", "--workload", workload});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "unknown key 'flop'");
  std::string sheet = Read(kData + "/check/test-sheet.yaml");
  sheet += "\nbandwith_bytes_per_second: 1\n";
  Write("sheet.yaml", sheet);
  r = RunXpuperf({"bench", "check", kData + "/check/pass", "--spec", Path("sheet.yaml")});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "unknown key 'bandwith_bytes_per_second'");

  // The record of a point that gave only m states n and k as run (the defaults).
  const std::string tiny = Write("tiny.yaml", GemmSuite("m: 8"));
  r = RunXpuperf({"bench", "run", "--suite", tiny, "--out", Path("ok"), "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string jsonl = Read(Path("ok/results.jsonl"));
  EXPECT_NE(jsonl.find("\"k\":512"), std::string::npos) << jsonl;
  EXPECT_NE(jsonl.find("\"m\":8"), std::string::npos) << jsonl;
}

// Class 7: what can be checked before the work starts is checked first.
TEST_F(HostileInputTest, OutputIsCheckedBeforeTheWork) {
  const std::string suite = Write("s.yaml", GemmSuite("m: 8"));
  for (const std::string& out :
       {std::string("/proc/xpuperf-results"), Path("file/r"), kData + "/check/pass"}) {
    if (out == Path("file/r")) Write("file", "x");
    auto r = RunXpuperf({"bench", "run", "--suite", suite, "--out", out});
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
    EXPECT_EQ(r.err.find("run   "), std::string::npos) << "ran before refusing: " << r.err;
  }
  // analyze refuses the report path before reading the trace.
  auto r = RunXpuperf({"analyze", Path("missing-trace.json"), "--html", "/proc/report.html"});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "/proc/report.html");
}

// Class 8: options have documented ranges.
TEST_F(HostileInputTest, OptionsAreBounded) {
  const std::string root = std::string(XPUPERF_CPU_TREES) + "/amd-zen";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"metrics", "--watch", "--count", "0", "--root", root},
           {"metrics", "--watch", "--count", "-3", "--root", root},
           {"top", "--count", "0", "--root", root},
           {"top", "--processes", "-1", "--root", root},
           {"metrics", "--watch", "--rate", "0", "--root", root}}) {
    auto r = RunXpuperf(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << " " << args[2] << " " << args[3];
    EXPECT_FALSE(r.err.empty());
  }
  auto r = RunXpuperf({"metrics", "--watch", "--count", "1", "--rate", "0.05", "--root", root});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Class 9, the other vendor libraries: a path in XPUPERF_LEVEL_ZERO_LIBRARY is read before it is
// loaded, as XPUPERF_NVML_LIBRARY's is (a truncated file faulted with SIGBUS in the loader; a
// second libxpuperf aborted in protobuf's registry). XPUPERF_AMDSMI_LIBRARY: amd_smi_test.cpp (the
// recorded trees answer from their files, so the CLI never opens AMD SMI on them).
TEST_F(HostileInputTest, VendorLibraryVariablesAreCheckedBeforeLoading) {
  const std::string library = Read(kLibxpuperf);
  ASSERT_GT(library.size(), size_t{1} << 20) << kLibxpuperf;
  const std::string truncated = Write("truncated.so", library.substr(0, library.size() / 4));
  const std::string text = Write("text.so", "not a library\n");
  std::string trees = XPUPERF_CPU_TREES;
  trees.erase(trees.size() - std::string("cpu/tests/data/trees").size());
  for (const auto& [variable, backend, root, kind] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {"XPUPERF_LEVEL_ZERO_LIBRARY", "intel", trees + "intel/tests/data/trees/arc-a770-i915",
            "Level Zero loader"}}) {
    for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
             {truncated, "truncated"}, {text, "not an ELF file"}, {kLibxpuperf, "defines none"}}) {
      ::setenv(variable.c_str(), path.c_str(), 1);
      auto r = RunXpuperf({"metrics", "--backend", backend, "--root", root, "--json"});
      ::unsetenv(variable.c_str());
      EXPECT_LT(r.exit_code, 128) << variable << "=" << path << " crashed: " << r.err;
      EXPECT_EQ(r.err.find("protobuf"), std::string::npos) << r.err;
      EXPECT_NE((r.out + r.err).find(path + " is not a usable " + kind + ": "), std::string::npos)
          << variable << "=" << path << ": " << r.out << r.err;
      EXPECT_NE((r.out + r.err).find(why), std::string::npos) << r.out << r.err;
    }
  }
}

// Class 10: messages name the real cause.
TEST_F(HostileInputTest, MessagesNameTheRealCause) {
  fs::create_symlink(Path("b.json"), Path("a.json"));
  fs::create_symlink(Path("a.json"), Path("b.json"));
  auto r = RunXpuperf({"analyze", Path("a.json")});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneLineNaming(r, "loop of symbolic links");
  // A directory where results.jsonl should be.
  fs::create_directories(Path("run/results.jsonl"));
  r = RunXpuperf({"bench", "check", Path("run"), "--spec", kData + "/check/test-sheet.yaml"});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "results.jsonl: is a directory");
  // The same record twice.
  fs::create_directories(Path("dup"));
  const std::string record = Read(kData + "/check/pass/results.jsonl");
  Write("dup/results.jsonl", record + record);
  r = RunXpuperf({"bench", "check", Path("dup"), "--spec", kData + "/check/test-sheet.yaml"});
  EXPECT_NE(r.exit_code, 0);
  ExpectOneLineNaming(r, "duplicates the record of line 1");
  // Output lost to a full device is a failure.
  const pid_t pid = fork();
  if (pid == 0) {
    const int full = open("/dev/full", O_WRONLY);
    dup2(full, STDOUT_FILENO);
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, STDERR_FILENO);
    std::string exe = XPUPERF_EXECUTABLE;
    std::string a1 = "metrics", a2 = "--list";
    char* argv[] = {exe.data(), a1.data(), a2.data(), nullptr};
    execv(exe.c_str(), argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
}

// A reader that goes away (`xpuperf ... | head -c 1`): xpuperf finishes its work (files it writes
// are complete) and says the output was lost, instead of dying silently of SIGPIPE.
TEST_F(HostileInputTest, AClosedPipeIsAnErrorNotASilentDeath) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // no reader at all
  const std::string err_path = Path("stderr.txt");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, STDERR_FILENO);
    std::string exe = XPUPERF_EXECUTABLE;
    std::string a1 = "metrics", a2 = "--list";
    char* argv[] = {exe.data(), a1.data(), a2.data(), nullptr};
    execv(exe.c_str(), argv);
    _exit(127);
  }
  close(fds[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(Read(err_path).find("Broken pipe"), std::string::npos) << Read(err_path);
}

// Names from files reach the terminal escaped: no OSC retitle, no screen clear, no C1 CSI.
TEST_F(HostileInputTest, ControlCharactersInNamesAreEscaped) {
  Write("evil.json",
        R"({"traceEvents":[{"ph":"X","name":"evil\u001b]0;pwned\u0007\u001b[2J\u009bop",)"
        R"("pid":1,"tid":1,"ts":0,"dur":100,"cat":"kernel"}]})");
  auto r = RunXpuperf({"analyze", Path("evil.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\x07'), std::string::npos);
  EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(r.out.find("evil\\x1b]0;pwned\\x07\\x1b[2J\\u009bop"), std::string::npos) << r.out;
  // JSON keeps its own escapes, unchanged.
  r = RunXpuperf({"analyze", Path("evil.json"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("evil\\u001b]0;pwned"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::cli

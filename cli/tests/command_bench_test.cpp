// `xpuperf bench` end to end: exit codes, a tiny run and its result directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "test_util.h"
#include "xpuperf/bench_commands/bench_summary.h"

namespace xpuperf::cli {
namespace {

using testing::RunXpuperf;
using testing::RunXpuperfIn;

TEST(CommandBenchTest, ListsBenchmarksAndSuites) {
  const auto result = RunXpuperf({"bench", "list"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("peak_fma"), std::string::npos);
  EXPECT_NE(result.out.find("quick"), std::string::npos);
}

TEST(CommandBenchTest, UnknownNamesAreUsageErrorsWithOneLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"bench", "run", "--suite", "nightly"},
        std::vector<std::string>{"bench", "run", "-b", "warp"},
        std::vector<std::string>{"bench", "run", "--only", "gpu"}}) {
    const auto result = RunXpuperf(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

TEST(CommandBenchTest, MalformedSuiteFailsWithTheLineAndWritesNothing) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf_bench_cli_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string suite = (dir / "bad.yaml").string();
  FILE* file = std::fopen(suite.c_str(), "w");
  std::fputs("name: bad\nbenchmarks:\n  - benchmark: stream\n    sweep: [{kernel: triad}\n", file);
  std::fclose(file);
  const auto result = RunXpuperf({"bench", "run", "--suite", suite, "--out", (dir / "r").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("bad.yaml:5:"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r"));
  std::filesystem::remove_all(dir);
}

// --pjrt-plugin is loaded before anything runs: a path that is not a PJRT plugin is a usage error
// in one line (the loader's reason), on `bench run` and on the per-component commands alike, and
// no result directory is made. The runs on a real plugin: cli/tests/bench_pjrt_plugin_test.sh.
TEST(CommandBenchTest, BadPjrtPluginIsAUsageErrorInOneLine) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf_bench_pjrt_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "a_directory.so");
  const std::string text_file = (dir / "xla_cpu_pjrt.so").string();
  FILE* file = std::fopen(text_file.c_str(), "w");
  std::fputs("not a shared library\n", file);
  std::fclose(file);
  const std::string missing = (dir / "missing" / "xla_cpu_pjrt.so").string();
  struct Case {
    std::string command;
    std::string plugin;
    std::string reason;
  };
  for (const Case& c : {Case{"run", missing, "No such file or directory"},
                        Case{"compute", missing, "No such file or directory"},
                        Case{"run", text_file, "cannot load"},
                        Case{"memory", (dir / "a_directory.so").string(), "not a regular file"}}) {
    const auto result = RunXpuperf({"bench", c.command, "--suite", "quick", "--pjrt-plugin",
                                    c.plugin, "--out", (dir / "r").string()});
    EXPECT_EQ(result.exit_code, 2) << c.command << " " << c.plugin << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_EQ(result.err.rfind("xpuperf bench: error: --pjrt-plugin: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(c.plugin), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(c.reason), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "r"));
  }
  std::filesystem::remove_all(dir);
}

TEST(CommandBenchTest, TinyRunWritesTheResultDirectory) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf_bench_run_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string suite = (dir / "tiny.yaml").string();
  FILE* file = std::fopen(suite.c_str(), "w");
  std::fputs(
      "name: tiny\nsampling: {warmup_samples: 0, samples: 2, min_sample_seconds: 0.001}\n"
      "benchmarks:\n"
      "  - benchmark: gemm\n    sweep: [{precision: fp64, m: 64, n: 64, k: 64}]\n"
      "  - benchmark: stream\n    sweep: [{kernel: triad, array_mib: 1}]\n",
      file);
  std::fclose(file);
  const auto result = RunXpuperf({"bench", "run", "--suite", suite, "--out", (dir / "r").string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("triad_bandwidth"), std::string::npos) << result.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "r" / "results.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(dir / "r" / "summary.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "r" / "environment.json"));
  // The same directory again is refused rather than overwritten.
  const auto again = RunXpuperf({"bench", "run", "--suite", suite, "--out", (dir / "r").string()});
  EXPECT_EQ(again.exit_code, 2);
  // --point-time-cap: a point whose samples would outlast it is skipped with the reason, and the
  // record says so; the run still succeeds. Out of range: one line, exit 2.
  const auto capped = RunXpuperf({"bench", "run", "--suite", suite, "--point-time-cap", "0.0000001",
                                  "--out", (dir / "capped").string()});
  EXPECT_EQ(capped.exit_code, 0) << capped.err;
  EXPECT_NE(capped.err.find("skipped: over its time cap (1e-07 s): one sample of "),
            std::string::npos)
      << capped.err;
  std::ifstream environment(dir / "capped" / "environment.json");
  const auto env = nlohmann::json::parse(environment, nullptr, false);
  ASSERT_TRUE(env.is_object());
  ASSERT_EQ(env["skipped"].size(), 2u) << env["skipped"].dump();
  EXPECT_NE(env["skipped"][0].get<std::string>().find(": skipped: over its time cap"),
            std::string::npos);
  const auto bad = RunXpuperf({"bench", "run", "--suite", suite, "--point-time-cap", "-1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.err,
            "xpuperf bench: error: --point-time-cap must be between 0 (no cap) and 86400 (got "
            "-1)\n");
  std::filesystem::remove_all(dir);
}

// The README's main job from a directory without results/ (issue: "results is not a
// directory"): the default results/<run id> and relative --out paths, with or without existing
// parents, from an empty working directory; each refusal names its real reason.
TEST(CommandBenchTest, RelativeResultDirectoriesWorkFromAnEmptyDirectory) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf_bench_rel_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "empty");
  const std::string suite = (dir / "tiny.yaml").string();
  FILE* file = std::fopen(suite.c_str(), "w");
  std::fputs(
      "name: tiny\nsampling: {warmup_samples: 0, samples: 2, min_sample_seconds: 0.001}\n"
      "benchmarks:\n  - benchmark: stream\n    sweep: [{kernel: triad, array_mib: 1}]\n",
      file);
  std::fclose(file);
  const std::string cwd = (dir / "empty").string();
  const auto by_default = RunXpuperfIn(cwd, {"bench", "run", "--suite", suite}, 120);
  ASSERT_EQ(by_default.exit_code, 0) << by_default.err;
  ASSERT_TRUE(std::filesystem::is_directory(dir / "empty" / "results"));
  const auto runs = std::distance(std::filesystem::directory_iterator(dir / "empty" / "results"),
                                  std::filesystem::directory_iterator());
  EXPECT_EQ(runs, 1);
  for (const std::string out : {"r1", "new/r2", "./new2/deep/r3", "../beside/r4"}) {
    const auto run = RunXpuperfIn(cwd, {"bench", "run", "--suite", suite, "--out", out}, 120);
    EXPECT_EQ(run.exit_code, 0) << out << ": " << run.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "empty" / out / "results.jsonl")) << out;
    EXPECT_NE(run.out.find("results in " + out + "/"), std::string::npos) << run.out;
  }
  // Refusals, each before the suite runs, each with its reason.
  std::ofstream(dir / "empty" / "afile") << "x";
  const auto exists = RunXpuperfIn(cwd, {"bench", "run", "--suite", suite, "--out", "r1"});
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_NE(exists.err.find("r1 already exists"), std::string::npos) << exists.err;
  const auto file_parent =
      RunXpuperfIn(cwd, {"bench", "run", "--suite", suite, "--out", "afile/run"});
  EXPECT_EQ(file_parent.exit_code, 2);
  EXPECT_NE(file_parent.err.find("afile exists and is not a directory"), std::string::npos)
      << file_parent.err;
  const auto unwritable =
      RunXpuperfIn(cwd, {"bench", "run", "--suite", suite, "--out", "/proc/xpuperf/run"});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("/proc is not writable"), std::string::npos) << unwritable.err;
  EXPECT_EQ(unwritable.err.find("suite tiny"), std::string::npos) << "refused before running";
  std::filesystem::remove_all(dir);
}

// Every other writer with a relative path from an empty working directory: report files next to
// it or under ./, directories (record --out) with missing parents created; a file into a folder
// that does not exist is refused naming that folder, before any work.
TEST(CommandBenchTest, EveryWriterTakesRelativePathsFromAnEmptyDirectory) {
  const std::string data = XPUPERF_TEST_DATA_DIR;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf_writers_rel_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cwd = dir.string();
  const std::string results = data + "/roofline/results-cpu";
  auto roofline = RunXpuperfIn(cwd, {"roofline", results, "--spec", "none", "--html", "report.html",
                                     "--svg", "./roofline.svg"});
  EXPECT_EQ(roofline.exit_code, 0) << roofline.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "report.html"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "roofline.svg"));
  auto missing =
      RunXpuperfIn(cwd, {"roofline", results, "--spec", "none", "--html", "nowhere/report.html"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("the directory nowhere does not exist"), std::string::npos)
      << missing.err;
  auto check = RunXpuperfIn(cwd, {"bench", "check", data + "/check/pass", "--spec",
                                  data + "/check/test-sheet.yaml", "--export", "check.json"});
  EXPECT_LE(check.exit_code, 1) << check.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "check.json")) << check.err;
  auto analyze =
      RunXpuperfIn(cwd, {"analyze", data + "/analyze/base.json", "--html", "./analysis.html"}, 120);
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "analysis.html"));
  for (const std::string out : {"rec", "deep/er/rec"}) {
    auto record = RunXpuperfIn(
        cwd, {"record", "--backend", "cpu", "--no-html", "--out", out, "--", "true"}, 120);
    EXPECT_EQ(record.exit_code, 0) << out << ": " << record.err;
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / out / "summary.json")) << out;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xpuperf::cli

namespace xpuperf::cli {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Ctrl-C after the first point: the finished point is kept as a result directory marked partial,
// which `bench check` reads and names as partial; `--resume` runs the rest into the same directory.
TEST(CommandBenchTest, AnInterruptedRunKeepsItsPointsAndResumes) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("xpuperf_bench_partial_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path suite = dir / "three.yaml";
  // The second point takes long enough (60 samples of 50 ms) to be running when the signal comes.
  std::ofstream(suite)
      << "name: three\n"
         "sampling: {warmup_samples: 0, samples: 2, min_sample_seconds: 0.01}\n"
         "benchmarks:\n"
         "  - benchmark: gemm\n    sweep:\n      - {m: 64, n: 64, k: 64}\n"
         "  - benchmark: gemm\n"
         "    sampling: {warmup_samples: 0, samples: 60, min_sample_seconds: 0.05}\n"
         "    sweep:\n      - {m: 64, n: 64, k: 65}\n"
         "  - benchmark: gemm\n    sweep:\n      - {m: 64, n: 64, k: 66}\n";
  const fs::path out = dir / "r";
  const fs::path err_path = dir / "err.txt";
  const pid_t pid = fork();
  if (pid == 0) {
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int null_fd = open("/dev/null", O_RDWR);
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    execl(XPUPERF_EXECUTABLE, XPUPERF_EXECUTABLE, "bench", "run", "--suite", suite.c_str(),
          "--threads", "1", "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // The signal once the first point has finished (a generous deadline: a loaded machine is slow).
  bool first_done = false;
  for (int i = 0; i < 1200 && !first_done; ++i) {
    first_done = ReadAll(err_path).find("[1/3] run   gemm {\"k\":64") != std::string::npos &&
                 ReadAll(err_path).find(" elapsed") != std::string::npos;
    if (!first_done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(first_done) << ReadAll(err_path);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string err = ReadAll(err_path);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 130) << err;
  EXPECT_NE(err.find("bench run --resume " + out.string()), std::string::npos) << err;
  const nlohmann::json env = nlohmann::json::parse(ReadAll(out / "environment.json"));
  EXPECT_EQ(env["partial"], true);
  EXPECT_EQ(env["points_done"].size(), 1u);
  EXPECT_EQ(env["points_pending"].size(), 2u);
  const std::string partial_jsonl = ReadAll(out / "results.jsonl");
  EXPECT_EQ(std::count(partial_jsonl.begin(), partial_jsonl.end(), '\n'), 1) << partial_jsonl;

  auto check = RunXpuperf({"bench", "check", out.string()});
  EXPECT_NE(check.err.find("is a partial run"), std::string::npos) << check.err;
  EXPECT_LT(check.exit_code, 128) << check.err;

  auto resumed = RunXpuperf({"bench", "run", "--resume", out.string()}, 300);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resumed: 1 points done, 2 to run"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("[1/2] run   gemm {\"k\":65"), std::string::npos) << resumed.err;
  const nlohmann::json whole = nlohmann::json::parse(ReadAll(out / "environment.json"));
  EXPECT_EQ(whole["partial"], false);
  const std::string jsonl = ReadAll(out / "results.jsonl");
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 3) << jsonl;
  // A complete run has nothing to resume; --resume takes no other run option.
  auto again = RunXpuperf({"bench", "run", "--resume", out.string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("nothing to resume"), std::string::npos) << again.err;
  auto mixed = RunXpuperf({"bench", "run", "--resume", out.string(), "--samples", "3"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("give it alone"), std::string::npos) << mixed.err;
  fs::remove_all(dir);
}

TEST(RenderSkippedTest, OneLinePerReasonWithTheBenchmarksCounted) {
  const std::vector<std::string> skipped = {
      R"(peak_fma {"precision":"bf16"}: unsupported: no AVX512_BF16)",
      R"(gpu_gemm {"m":1,"note":"a}: b"}: unsupported: no CUDA driver)",
      R"(gpu_gemm {"m":2} on nvidia0: unsupported: no CUDA driver)",
      R"(gpu_stream {"kernel":"copy"}: unsupported: no CUDA driver)",
      "odd line without a point",
  };
  EXPECT_EQ(bench_commands::RenderSkipped(skipped),
            "skipped: peak_fma {\"precision\":\"bf16\"}: unsupported: no AVX512_BF16\n"
            "skipped: 3 points of gpu_gemm, gpu_stream: unsupported: no CUDA driver\n"
            "skipped: odd line without a point\n");
  EXPECT_EQ(bench_commands::RenderSkipped({}), "");
}

}  // namespace
}  // namespace xpuperf::cli

// `xpuperf bench network` end to end: usage errors, mpirun missing, a 4-rank run through --ranks
// and the registry's `collectives` benchmark inside `bench run`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"
#include "xpuperf/collectives/mpirun.h"

namespace xpuperf::cli {
namespace {

namespace fs = std::filesystem;
using testing::RunXpuperf;

bool BuiltWithoutMpi() {
  const auto result = RunXpuperf({"bench", "network", "--ranks", "2", "-b", "x"});
  return result.err.find("built without MPI") != std::string::npos;
}

bool MpirunOnPath() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

fs::path FreshDirectory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<nlohmann::json> ReadRecords(const fs::path& file) {
  std::vector<nlohmann::json> records;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) records.push_back(nlohmann::json::parse(line));
  return records;
}

// Sets an environment variable for the commands this test starts and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    old_ = had_ ? old : "";
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// Open MPI's runtime keeps allocations until exit: in sanitizer builds the ranks must not fail on
// leak reports about them.
ScopedEnv NoLeakReportsInRanks() {
  const char* old = std::getenv("ASAN_OPTIONS");
  return ScopedEnv("ASAN_OPTIONS", std::string(old != nullptr ? old : "") +
                                       (old != nullptr && *old != 0 ? ":" : "") + "detect_leaks=0");
}

TEST(BenchNetworkTest, BadOptionsAreUsageErrorsWithOneLine) {
  if (BuiltWithoutMpi()) GTEST_SKIP() << "built without MPI";
  for (const std::vector<std::string>& args : {
           std::vector<std::string>{"bench", "network", "--ranks", "2", "-b", "8X"},
           std::vector<std::string>{"bench", "network", "--ranks", "2", "-b", "64", "-e", "8"},
           std::vector<std::string>{"bench", "network", "--ranks", "2", "-f", "1"},
           std::vector<std::string>{"bench", "network", "--ranks", "2", "--op", "allreduce"},
           std::vector<std::string>{"bench", "network", "--ranks", "2", "--iters", "0"},
           std::vector<std::string>{"bench", "network", "--ranks", "1"},
           std::vector<std::string>{"bench", "network"},  // neither mpirun nor --ranks
       }) {
    const auto result = RunXpuperf(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_EQ(result.err.rfind("xpuperf bench network: error: ", 0), 0u) << result.err;
  }
}

TEST(BenchNetworkTest, RanksWithoutMpirunFailsAndWritesNothing) {
  if (BuiltWithoutMpi()) GTEST_SKIP() << "built without MPI";
  const fs::path dir = FreshDirectory("xpuperf_net_nompirun");
  testing::CommandResult result;
  {
    const ScopedEnv path("PATH", (dir / "empty-bin").string());
    result = RunXpuperf({"bench", "network", "--ranks", "4", "--out", (dir / "r").string()});
  }
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "xpuperf bench network: error: mpirun not found (install openmpi-bin)\n");
  EXPECT_FALSE(fs::exists(dir / "r"));
  fs::remove_all(dir);
}

TEST(BenchNetworkTest, FourRanksThroughRanksWriteVerifiedResults) {
  if (BuiltWithoutMpi()) GTEST_SKIP() << "built without MPI";
  if (!MpirunOnPath()) GTEST_SKIP() << "mpirun not found (install openmpi-bin)";
  const ScopedEnv sanitizer = NoLeakReportsInRanks();
  const fs::path dir = FreshDirectory("xpuperf_net_run");
  const auto result = RunXpuperf(
      {"bench", "network", "--ranks", "4", "-b", "4K", "-e", "256K", "-f", "64", "--iters", "2",
       "--warmup", "1", "--samples", "2", "--check", "--out", (dir / "r").string()},
      120);
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("4 ranks on 1 host"), std::string::npos) << result.out;
  // Four ranks on fewer CPUs share cores: said above the table, every figure unstable.
  const bool oversubscribed = sysconf(_SC_NPROCESSORS_ONLN) < 4;
  EXPECT_EQ(result.out.find("# warning: oversubscribed: 4 ranks per host on ") != std::string::npos,
            oversubscribed)
      << result.out;
  EXPECT_NE(result.out.find("#wrong"), std::string::npos);
  EXPECT_NE(result.out.find("# Avg bus bandwidth all_reduce"), std::string::npos);
  // Progress on stderr, a line per point: i of n, the time so far and what is left.
  EXPECT_NE(result.err.find("[1/12] all_reduce 4096 B: "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(" elapsed, about "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("[12/12] send_recv 262144 B: "), std::string::npos) << result.err;
  // Out of place and in place: nccl-tests' two column groups; broadcast in place only.
  EXPECT_NE(result.out.find("out-of-place"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("broadcast   none          n/a"), std::string::npos) << result.out;
  // 6 collectives, each out of place and in place (broadcast in place only): latency at 4 KiB,
  // algbw and busbw at 256 KiB.
  const auto records = ReadRecords(dir / "r" / "results.jsonl");
  ASSERT_EQ(records.size(), 33u);
  for (const auto& record : records) {
    EXPECT_EQ(record["benchmark"], "collectives");
    EXPECT_EQ(record["parameters"]["ranks"], 4);
    EXPECT_EQ(record["parameters"]["wrong"], 0);
    EXPECT_GT(record["value"].get<double>(), 0);
    EXPECT_EQ(record["samples_s"].size(), 2u);
    EXPECT_EQ(record["stable"], !oversubscribed) << record.dump();
  }
  // all_reduce: 4 KiB out of place, in place; 256 KiB out of place (algbw, busbw), in place.
  EXPECT_EQ(records[0]["metric"], "all_reduce_latency");
  EXPECT_EQ(records[0]["parameters"]["in_place"], false);
  EXPECT_EQ(records[1]["metric"], "all_reduce_latency");
  EXPECT_EQ(records[1]["parameters"]["in_place"], true);
  EXPECT_EQ(records[2]["metric"], "all_reduce_algbw");
  EXPECT_EQ(records[3]["metric"], "all_reduce_busbw");
  EXPECT_EQ(records[3]["parameters"]["bytes"], 262144);
  EXPECT_EQ(records[3]["parameters"]["dtype"], "float");
  EXPECT_EQ(records[3]["parameters"]["redop"], "sum");
  // busbw = algbw x 2(4-1)/4.
  EXPECT_NEAR(records[3]["value"].get<double>(), 1.5 * records[2]["value"].get<double>(), 1e-12);

  // -d and -o: another datatype and reduction, verified; an unknown one is a usage error.
  const auto typed = RunXpuperf({"bench",
                                 "network",
                                 "--ranks",
                                 "2",
                                 "-b",
                                 "64K",
                                 "-e",
                                 "64K",
                                 "--op",
                                 "all_reduce",
                                 "-d",
                                 "half",
                                 "-o",
                                 "max",
                                 "--iters",
                                 "2",
                                 "--warmup",
                                 "1",
                                 "--samples",
                                 "2",
                                 "--check",
                                 "--out",
                                 (dir / "typed").string()},
                                120);
  ASSERT_EQ(typed.exit_code, 0) << typed.out << typed.err;
  EXPECT_NE(typed.out.find("half, max"), std::string::npos) << typed.out;
  EXPECT_NE(typed.out.find("     half      all_reduce    max"), std::string::npos) << typed.out;
  const auto typed_records = ReadRecords(dir / "typed" / "results.jsonl");
  ASSERT_EQ(typed_records.size(), 4u);
  for (const auto& record : typed_records) {
    EXPECT_EQ(record["parameters"]["dtype"], "half");
    EXPECT_EQ(record["parameters"]["redop"], "max");
    EXPECT_EQ(record["parameters"]["wrong"], 0);
  }
  const auto unknown = RunXpuperf({"bench", "network", "--ranks", "2", "-d", "int8"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_EQ(unknown.err,
            "xpuperf bench network: error: unknown datatype 'int8' (known: float, double, half, "
            "bfloat16, int32; also int, fp32, fp64, fp16, bf16)\n");

  // The same directory again: refused before mpirun starts.
  const auto again =
      RunXpuperf({"bench", "network", "--ranks", "4", "--out", (dir / "r").string()});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("already exists"), std::string::npos);
  fs::remove_all(dir);
}

TEST(BenchNetworkTest, BenchRunMeasuresTheNetworkThroughTheRegistry) {
  if (BuiltWithoutMpi()) GTEST_SKIP() << "built without MPI";
  if (!MpirunOnPath()) GTEST_SKIP() << "mpirun not found (install openmpi-bin)";
  if (collectives::AllowedCpus() < 2) GTEST_SKIP() << "one CPU: the suite skips the network";
  const ScopedEnv sanitizer = NoLeakReportsInRanks();
  const fs::path dir = FreshDirectory("xpuperf_net_suite");
  std::ofstream(dir / "net.yaml")
      << "name: net\nsampling: {warmup_samples: 0, samples: 2, min_sample_seconds: 0.001}\n"
         "benchmarks:\n"
         "  - {benchmark: collectives, sweep: [{ops: 'all_reduce,send_recv', begin: 1K, end: "
         "1M, factor: 1024, iters: 2, warmup: 1}]}\n";
  const auto result = RunXpuperf(
      {"bench", "run", "--suite", (dir / "net.yaml").string(), "--out", (dir / "r").string()}, 120);
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto records = ReadRecords(dir / "r" / "results.jsonl");
  // 2 collectives, out of place and in place: latency at 1 KiB, algbw + busbw at 1 MiB.
  ASSERT_EQ(records.size(), 12u);
  EXPECT_EQ(records[0]["metric"], "all_reduce_latency");
  EXPECT_EQ(records[11]["metric"], "send_recv_busbw");
  EXPECT_EQ(records[11]["parameters"]["in_place"], true);
  EXPECT_EQ(records[11]["samples_s"].size(), 2u);
  // min(CPUs this process may use, 4) ranks.
  EXPECT_EQ(records[11]["parameters"]["ranks"].get<int>(), std::min(collectives::AllowedCpus(), 4));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xpuperf::cli

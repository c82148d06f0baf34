// End-to-end tests of the xpuperf executable: exit codes, one-line errors, valid JSON on the live
// machine and on recorded trees.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "test_util.h"

namespace xpuperf::cli {
namespace {

using nlohmann::json;
using testing::RunXpuperf;

const std::string kTrees = XPUPERF_CPU_TREES;

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

void ExpectUsageError(const std::vector<std::string>& args, const std::string& message) {
  auto r = RunXpuperf(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  // One style: "xpuperf COMMAND: error: ..." ("xpuperf: error: ..." before a command is known).
  EXPECT_TRUE(std::regex_search(r.err, std::regex("^xpuperf( [a-z]+)*: error: "))) << r.err;
}

TEST(CliTest, VersionAndHelp) {
  auto version = RunXpuperf({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("xpuperf ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("\ngzip inflater: "), std::string::npos) << version.out;
  auto help = RunXpuperf({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
  EXPECT_NE(help.out.find("xpuperf top"), std::string::npos);
}

// build/xpuperf runs analyze itself and execs xpuperf-full for every other command: without it
// next to the front, a command fails with one line that says what is missing.
TEST(CliTest, FrontWithoutTheFullBinarySaysWhatIsMissing) {
  const std::filesystem::path full = std::filesystem::path(XPUPERF_BINARY_DIR) / "xpuperf-full";
  if (!std::filesystem::exists(full)) GTEST_SKIP() << "built without the analyze front";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xpuperf-front-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::filesystem::path(XPUPERF_BINARY_DIR) / "xpuperf", dir / "xpuperf",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string command = (dir / "xpuperf").string() + " devices 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[512];
  while (size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  const int status = ::pclose(pipe);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(WEXITSTATUS(status), 1) << out;
  EXPECT_EQ(out.rfind("xpuperf: error: cannot run ", 0), 0u) << out;
  EXPECT_NE(out.find("xpuperf-full"), std::string::npos) << out;
}

// XPUPERF_INFLATER=zlib picks zlib over ISA-L; --version says which inflater is in use.
TEST(CliTest, InflaterChoiceIsNamedByVersion) {
  const std::string command =
      "XPUPERF_INFLATER=zlib " + std::string(XPUPERF_BINARY_DIR) + "/xpuperf --version 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[512];
  while (size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  EXPECT_EQ(WEXITSTATUS(::pclose(pipe)), 0) << out;
  EXPECT_NE(out.find("\ngzip inflater: zlib "), std::string::npos) << out;
}

TEST(CliTest, UsageErrorsExitTwoWithOneLine) {
  ExpectUsageError({"metrics", "--metric", "no_such_metric"}, "unknown metric 'no_such_metric'");
  ExpectUsageError({"metrics", "--device", "gpu7"}, "unknown device 'gpu7'");
  ExpectUsageError({"metrics", "--watch", "--rate", "0"}, "--rate must be between");
  ExpectUsageError({"metrics", "--watch", "--rate", "-1"}, "--rate must be between");
  ExpectUsageError({"metrics", "--watch", "--rate", "nan"}, "--rate must be between");
  ExpectUsageError({"metrics", "--rate", "fast"}, "--rate");
  ExpectUsageError({"top", "--rate", "100000"}, "--rate must be between");
  ExpectUsageError({"devices", "--root", "/no/such/dir"}, "/no/such/dir");
  ExpectUsageError({"devices", "--backend", "quantum"}, "unknown backend 'quantum'");
  ExpectUsageError({"metrics", "--pid", "-5"}, "--pid must be a positive process id");
  // Given explicitly, never read as "not given": not the whole machine, not for ever.
  ExpectUsageError({"record", "--pid", "-1", "--duration", "1"}, "--pid must be a positive");
  ExpectUsageError({"record", "--pid", "0"}, "--pid must be a positive");
  ExpectUsageError({"record", "--duration", "0"}, "--duration must be more than 0");
  ExpectUsageError({"frobnicate"}, "unknown command 'frobnicate'");
  ExpectUsageError({}, "subcommand is required");
}

TEST(CliTest, UnreadableProcIsAFailureWithTheReason) {
  const auto empty = std::filesystem::temp_directory_path() / "xpuperf-empty-root";
  std::filesystem::create_directories(empty);
  auto r = RunXpuperf({"devices", "--backend", "cpu", "--root", empty.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("proc/stat"), std::string::npos) << r.err;
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
}

TEST(CliTest, LiveDevicesJsonDescribesThisHost) {
  auto r = RunXpuperf({"devices", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["json_schema_version"], 1);
  ASSERT_FALSE(doc["devices"].empty());
  const json& cpu = doc["devices"][0];
  EXPECT_EQ(cpu["backend"], "cpu");
  EXPECT_GT(cpu["memory_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(cpu["topology"]["threads"].get<int>(), 0);
}

TEST(CliTest, LiveMetricsJsonHasValuesOrReasons) {
  auto r = RunXpuperf({"metrics", "--json", "--window", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_FALSE(doc["readings"].empty());
  bool memory_seen = false;
  for (const json& reading : doc["readings"]) {
    if (reading["state"] == "ok") {
      EXPECT_FALSE(reading["samples"].empty()) << reading.dump();
    } else {
      EXPECT_FALSE(reading["reason"].get<std::string>().empty()) << reading.dump();
    }
    if (reading["metric"] == "memory_total_bytes") {
      memory_seen = true;
      EXPECT_EQ(reading["state"], "ok");
      EXPECT_GT(reading["samples"][0]["value"].get<double>(), 0);
    }
  }
  EXPECT_TRUE(memory_seen);
}

TEST(CliTest, WatchJsonLinesStopsAfterCount) {
  auto r = RunXpuperf({"metrics", "--json", "--watch", "--rate", "0.1", "--count", "3", "--metric",
                       "duty_cycle_percent"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out), 3);
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    json doc = json::parse(line);
    ASSERT_EQ(doc["readings"].size(), 1u);
    EXPECT_EQ(doc["readings"][0]["metric"], "duty_cycle_percent");
  }
}

TEST(CliTest, TopDegradesToPlainTableWithoutTerminal) {
  auto r = RunXpuperf({"top", "--count", "2", "--rate", "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("xpuperf top"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PID"), std::string::npos) << r.out;
}

TEST(CliTest, RecordedVmTreeExplainsEveryMissingSource) {
  auto r = RunXpuperf({"metrics", "--json", "--root", kTrees + "/vm", "--window", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  for (const json& reading : doc["readings"]) {
    const std::string metric = reading["metric"];
    if (metric == "power_watts" || metric == "energy_joules" || metric == "temperature_celsius" ||
        metric == "tensorcore_utilization_percent") {
      EXPECT_EQ(reading["state"], "unsupported") << reading.dump();
      EXPECT_EQ(reading["reason"].get<std::string>().rfind("unsupported: ", 0), 0u)
          << reading.dump();
    }
  }
}

TEST(CliTest, RecordedIntelTreeDevicesMatchGolden) {
  // --backend cpu: the golden output must not depend on other backends of this build or machine.
  auto r = RunXpuperf({"devices", "--json", "--backend", "cpu", "--root", kTrees + "/intel-2s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  doc.erase("host");
  doc.erase("xpuperf_version");
  EXPECT_EQ(testing::CompareGolden("intel-2s-devices.json", doc.dump(2) + "\n"), "");
  auto table = RunXpuperf({"devices", "--backend", "cpu", "--root", kTrees + "/intel-2s"});
  EXPECT_EQ(testing::CompareGolden("intel-2s-devices.txt", table.out), "");
}

TEST(CliTest, RecordedIntelTreeMetricsTableMatchesGolden) {
  // --window 0: rates need two different snapshots, which a static tree cannot give; the golden
  // output shows the instantaneous metrics and the "no data" reasons of the rate metrics.
  auto r =
      RunXpuperf({"metrics", "--backend", "cpu", "--root", kTrees + "/intel-2s", "--window", "0",
                  "--metric", "memory_total_bytes", "--metric", "memory_used_bytes", "--metric",
                  "temperature_celsius", "--metric", "clock_hertz", "--metric", "queue_size"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::CompareGolden("intel-2s-metrics.txt", r.out), "");
}

}  // namespace
}  // namespace xpuperf::cli

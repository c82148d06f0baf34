// `xpuperf record` with the BMC's power reading: a fake ipmitool on PATH gives readings once a
// second whose held integral is the exact joules in the summary; a host without a BMC or
// without ipmitool says why; --ipmi-period below a second is refused.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <sstream>

#include "record_test_util.h"
#include "test_util.h"

namespace xpuperf::cli {
namespace {

using namespace record_testing;
using testing::RunXpuperf;

// PATH with the fake ipmitool first (or without any ipmitool), restored at the end of the test.
class PathScope {
 public:
  explicit PathScope(const std::string& path)
      : old_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", path.c_str(), 1);
  }
  ~PathScope() { ::setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

const std::string kFakeIpmitoolDir = kData + "/fake-ipmitool";

TEST_F(RecordTest, BmcDcmiReadingsIntegrateToTheExactJoules) {
  PathScope path(kFakeIpmitoolDir + ":/usr/bin:/bin");
  ::setenv("FAKE_IPMITOOL_STATE", (dir_ / "calls").c_str(), 1);
  const fs::path out = dir_ / "out";
  auto r = RunXpuperf({"record", "--backend", "cpu", "--rate", "20", "--no-html", "--out",
                       out.string(), "--", "sleep", "3.6"});
  ::unsetenv("FAKE_IPMITOOL_STATE");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json summary = Summary(out);
  // The timeline's BMC readings, each held until the next: the summary's joules exactly.
  std::istringstream lines(ReadAll(out / "timeline.jsonl"));
  std::string line;
  int64_t series = -1;
  std::vector<std::pair<int64_t, double>> readings;  // (mono ns, watts)
  while (std::getline(lines, line)) {
    json row = json::parse(line);
    if (row["type"] == "series" && row["device"] == "bmc") series = row["index"];
    if (row["type"] != "tick") continue;
    for (const json& v : row["values"]) {
      if (v[0] == series) readings.emplace_back(row["mono_ns"].get<int64_t>(), v[1].get<double>());
    }
  }
  ASSERT_GE(readings.size(), 3u) << summary["bmc"].dump();
  // Once a second at most (the BMC updates no faster): the calls start a second apart, so a run
  // of 3.6 s has at most 5 readings. A reading is stamped when its call returns, and a loaded
  // machine delays one fake ipmitool more than the next: their stamps may be closer than the
  // period by that difference, hence half a second as the bound between two.
  EXPECT_LE(readings.size(), 5u) << summary["bmc"].dump();
  double joules = 0;
  for (size_t i = 1; i < readings.size(); ++i) {
    joules += readings[i - 1].second *
              static_cast<double>(readings[i].first - readings[i - 1].first) / 1e9;
    EXPECT_GE(readings[i].first - readings[i - 1].first, 500'000'000);
  }
  EXPECT_EQ(readings[0].second, 200);
  EXPECT_EQ(readings[1].second, 300);
  const json* energy = Find(summary["energy"], "bmc", "domain", "ipmi_dcmi");
  ASSERT_NE(energy, nullptr) << summary["energy"].dump();
  EXPECT_NEAR((*energy)["joules"].get<double>(), joules, 1e-6 * joules);
  EXPECT_NE((*energy)["method"].get<std::string>().find("read every 1 s"), std::string::npos);
  EXPECT_EQ(summary["bmc"]["readings"], readings.size());
  EXPECT_EQ(summary["bmc"]["bmc_sampling_period_seconds"], 1.0);
  EXPECT_TRUE(summary["bmc"]["problem"].is_null());
  EXPECT_NE(r.err.find("ipmi_dcmi"), std::string::npos) << r.err;
}

TEST_F(RecordTest, NoBmcAndNoIpmitoolSayWhy) {
  {
    PathScope path(kFakeIpmitoolDir + ":/usr/bin:/bin");
    ::setenv("FAKE_IPMITOOL", "no-bmc", 1);
    const fs::path out = dir_ / "no-bmc";
    auto r = RunXpuperf(
        {"record", "--backend", "cpu", "--no-html", "--out", out.string(), "--", "sleep", "0.5"});
    ::unsetenv("FAKE_IPMITOOL");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json summary = Summary(out);
    const json* row = Find(summary["unavailable"], "bmc", "metric", "power_watts");
    ASSERT_NE(row, nullptr) << summary.dump();
    EXPECT_EQ((*row)["reason"],
              "no BMC (ipmitool dcmi power reading exited with 1: Could not open device at "
              "/dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: No such file or directory)");
  }
  {
    PathScope path(dir_.string());  // no ipmitool there
    const fs::path out = dir_ / "no-ipmitool";
    auto r = RunXpuperf({"record", "--backend", "cpu", "--no-html", "--out", out.string(), "--",
                         "/bin/sleep", "0.2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json summary = Summary(out);
    const json* row = Find(summary["unavailable"], "bmc", "metric", "power_watts");
    ASSERT_NE(row, nullptr);
    EXPECT_EQ((*row)["reason"], "unsupported: ipmitool not found on PATH");
    EXPECT_NE(r.err.find("ipmitool not found"), std::string::npos) << r.err;
  }
  // --no-ipmi: not asked, so not listed.
  const fs::path out = dir_ / "off";
  auto r = RunXpuperf({"record", "--backend", "cpu", "--no-html", "--no-ipmi", "--out",
                       out.string(), "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = Summary(out);
  EXPECT_EQ(Find(summary["unavailable"], "bmc", "metric", "power_watts"), nullptr);
  EXPECT_FALSE(summary.contains("bmc"));
}

TEST_F(RecordTest, IpmiPeriodBelowASecondIsAUsageError) {
  auto r =
      RunXpuperf({"record", "--ipmi-period", "0.2", "--out", (dir_ / "o").string(), "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--ipmi-period must be between 1 and 3600 seconds"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace xpuperf::cli

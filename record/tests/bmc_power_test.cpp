// The BMC power source: ipmitool's DCMI and SDR texts of a few real BMC formats parsed exactly,
// garbage and out-of-range figures refused; the source run against fake ipmitool scripts (a
// normal BMC, no BMC, no DCMI but PSU sensors, garbage, a hang, a missing program).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "xpuperf/record/bmc_power_parse.h"
#include "xpuperf/record/bmc_power_source.h"

namespace xpuperf::record {
namespace {

namespace fs = std::filesystem;

// ipmitool 1.8.18 (ctime timestamp, followed by the blank line ctime's newline makes).
constexpr const char* kDcmi1818 = R"(

    Instantaneous power reading:                   228 Watts
    Minimum during sampling period:                 20 Watts
    Maximum during sampling period:                468 Watts
    Average power reading over sample period:      215 Watts
    IPMI timestamp:                           Thu Feb 15 09:37:32 2024

    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated


)";

// ipmitool 1.8.19 (numeric timestamp, width-8 figures).
constexpr const char* kDcmi1819 = R"(
    Instantaneous power reading:                   97.5 Watts
    Minimum during sampling period:                   2 Watts
    Maximum during sampling period:                 304 Watts
    Average power reading over sample period:        49 Watts
    IPMI timestamp:                           05/05/24 13:06:44 UTC
    Sampling period:                          00000005 Seconds.
    Power reading state is:                   activated
)";

// A Supermicro X11 BMC: no DCMI power reading, two PSUs with input power sensors.
constexpr const char* kSdrSupermicro = R"(PS1 Status       | C8h | ok  | 10.1 | Presence detected
PS2 Status       | C9h | ok  | 10.2 | Presence detected
PS1 Input Power  | 5Fh | ok  | 10.1 | 112 Watts
PS2 Input Power  | 60h | ok  | 10.2 | 120.50 Watts
PS1 Output Power | 61h | ok  | 10.1 | 101 Watts
PS2 Curr Out %   | 58h | ns  | 10.2 | No Reading
)";

// A Dell PowerEdge (`sdr type Current`): the node total alone.
constexpr const char* kSdrDell = R"(Current 1        | 6Ah | ok  | 10.1 | 0.40 Amps
Current 2        | 6Bh | ok  | 10.2 | 0.40 Amps
Voltage 1        | 6Ch | ok  | 10.1 | 230 Volts
Pwr Consumption  | 77h | ok  |  7.1 | 98 Watts
)";

TEST(BmcPowerParse, DcmiOfIpmitool1818) {
  Result<BmcPowerReading> r = ParseDcmiPowerReading(kDcmi1818);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->watts, 228);
  EXPECT_EQ(*r->minimum_watts, 20);
  EXPECT_EQ(*r->maximum_watts, 468);
  EXPECT_EQ(*r->average_watts, 215);
  EXPECT_EQ(*r->sampling_period_s, 1);
  EXPECT_EQ(r->bmc_timestamp, "Thu Feb 15 09:37:32 2024");
}

TEST(BmcPowerParse, DcmiOfIpmitool1819AndMilliseconds) {
  Result<BmcPowerReading> r = ParseDcmiPowerReading(kDcmi1819);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->watts, 97.5);
  EXPECT_EQ(*r->sampling_period_s, 5);
  EXPECT_EQ(r->bmc_timestamp, "05/05/24 13:06:44 UTC");
  r = ParseDcmiPowerReading(
      "Instantaneous power reading : 214 Watts\nSampling period : 1000 Milliseconds\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->watts, 214);
  EXPECT_EQ(*r->sampling_period_s, 1.0);
  EXPECT_TRUE(r->bmc_timestamp.empty());
}

TEST(BmcPowerParse, DcmiRefusesWhatIsNotAReading) {
  const char* bad[] = {
      "",
      "Could not open device at /dev/ipmi0: No such file or directory\n",
      "Instantaneous power reading: 220 W\n",             // unit
      "Instantaneous power reading: -5 Watts\n",          // sign
      "Instantaneous power reading: 1e3 Watts\n",         // exponent
      "Instantaneous power reading: 0x10 Watts\n",        // hex
      "Instantaneous power reading: nan Watts\n",         // not a number
      "Instantaneous power reading: 100001 Watts\n",      // out of range
      "Instantaneous power reading: 9999999999 Watts\n",  // too many digits
      "Instantaneous power reading: 12. Watts\n",         // no fraction digits
      "Instantaneous power reading: 1 Watts\nInstantaneous power reading: 2 Watts\n",
      "Instantaneous power reading: 1 Watts\nSampling period: 99999999999 Seconds.\n",
      "Instantaneous power reading: 1 Watts\nPower reading state is: maybe\n",
  };
  for (const char* text : bad) {
    EXPECT_FALSE(ParseDcmiPowerReading(text).ok()) << text;
  }
  Result<BmcPowerReading> off = ParseDcmiPowerReading(
      "Instantaneous power reading: 0 Watts\nPower reading state is: deactivated\n");
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.error().message.find("deactivated"), std::string::npos);
  EXPECT_FALSE(ParseDcmiPowerReading(std::string(kMaxIpmitoolOutputBytes + 1, ' ')).ok());
}

TEST(BmcPowerParse, SdrSumsThePsuInputsOrTakesTheNodeTotal) {
  Result<BmcPowerReading> r = ParseSdrPowerSensors(kSdrSupermicro);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->watts, 232.5);  // the inputs; the output sensor is not added
  EXPECT_EQ(r->sensors, "PS1 Input Power + PS2 Input Power");
  r = ParseSdrPowerSensors(kSdrDell);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->watts, 98);
  EXPECT_EQ(r->sensors, "Pwr Consumption");
}

TEST(BmcPowerParse, SdrWithoutAPowerSensorOrWithGarbageIsAnError) {
  EXPECT_EQ(ParseSdrPowerSensors("Current 1 | 6Ah | ok | 10.1 | 0.40 Amps\n").error().code,
            ErrorCode::kUnsupported);
  EXPECT_FALSE(ParseSdrPowerSensors("PS1 Input Power | 5Fh | ok | 10.1 | lots Watts\n").ok());
  EXPECT_FALSE(ParseSdrPowerSensors("PS1 Input Power | 5Fh | ok | 10.1 | 200000 Watts\n").ok());
  EXPECT_FALSE(ParseSdrPowerSensors("PS1 Input Power | 5Fh | ns | 10.1 | 100 Watts\n").ok());
  EXPECT_FALSE(ParseSdrPowerSensors("\x01\x02|||||\n").ok());
}

TEST(BmcPowerParse, FirstLineIsTrimmedAndPrintable) {
  EXPECT_EQ(FirstLine("\n\n  Could not open device\x01  \nmore"), "Could not open device?");
  EXPECT_EQ(FirstLine(std::string(500, 'x')).size(), 200u);
}

// Fake ipmitool scripts in a temporary directory.
class BmcPowerSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xpuperf-bmc-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Script(const std::string& body) const {
    const std::string path = (dir_ / "ipmitool").string();
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  // Waits up to `seconds` for the source to have `readings` readings or a final reason.
  static void WaitFor(const BmcPowerSource& source, int64_t readings, double seconds) {
    for (int i = 0; i < seconds * 100; ++i) {
      if (source.readings() >= readings) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  fs::path dir_;
};

TEST_F(BmcPowerSourceTest, MissingProgramIsUnsupported) {
  BmcPowerOptions options;
  options.program = "xpuperf-no-such-ipmitool";
  BmcPowerSource source(options);
  EXPECT_EQ(source.reason(), "unsupported: xpuperf-no-such-ipmitool not found on PATH");
  EXPECT_TRUE(source.TakeNew().empty());
}

TEST_F(BmcPowerSourceTest, DcmiReadingsArriveOncePerPeriodAndRepeatsAreDropped) {
  // The first two calls give the same BMC sample (same timestamp and figure), then a new one.
  BmcPowerOptions options;
  options.program = Script(
      "n=$(cat \"$0.n\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$0.n\"\n"
      "[ \"$1 $2 $3\" = \"dcmi power reading\" ] || exit 9\n"
      "if [ $n -lt 2 ]; then w=200; t=1; else w=300; t=2; fi\n"
      "echo \"    Instantaneous power reading:  $w Watts\"\n"
      "echo \"    IPMI timestamp:               Thu Feb 15 09:37:0$t 2024\"\n"
      "echo \"    Sampling period:              00000001 Seconds.\"\n");
  BmcPowerSource source(options);
  WaitFor(source, 2, 6);
  std::vector<BmcSample> samples = source.TakeNew();
  ASSERT_EQ(samples.size(), 2u) << source.reason();
  EXPECT_EQ(samples[0].watts, 200);
  EXPECT_EQ(samples[1].watts, 300);
  EXPECT_EQ(samples[0].domain, kBmcDcmiDomain);
  // At most one call a second: the third call (the second new sample) is >= 2 s after the first.
  EXPECT_GE(samples[1].mono_ns - samples[0].mono_ns, 1'900'000'000);
  EXPECT_EQ(*source.bmc_sampling_period_s(), 1);
  EXPECT_NE(source.method().find("DCMI"), std::string::npos);
  EXPECT_TRUE(source.reason().empty());
}

TEST_F(BmcPowerSourceTest, NoBmcQuotesIpmitoolsError) {
  BmcPowerOptions options;
  options.program = Script(
      "echo 'Could not open device at /dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: No such file "
      "or directory' >&2\nexit 1\n");
  BmcPowerSource source(options);
  for (int i = 0; i < 300 && source.reason().starts_with("no answer"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(source.reason(),
            "no BMC (ipmitool dcmi power reading exited with 1: Could not open device at "
            "/dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: No such file or directory)");
  EXPECT_EQ(source.readings(), 0);
}

TEST_F(BmcPowerSourceTest, WithoutDcmiThePsuSensorsAreRead) {
  BmcPowerOptions options;
  options.program = Script(std::string("case \"$1 $2\" in\n"
                                       "  'dcmi power') echo 'DCMI request failed because: "
                                       "Invalid command (c1)' >&2; exit 1;;\n"
                                       "  'sdr type') [ \"$3\" = 'Power Supply' ] || exit 3\n"
                                       "    cat <<'EOF'\n") +
                           kSdrSupermicro + "EOF\n;;\nesac\n");
  BmcPowerSource source(options);
  WaitFor(source, 1, 5);
  std::vector<BmcSample> samples = source.TakeNew();
  ASSERT_FALSE(samples.empty()) << source.reason();
  EXPECT_EQ(samples[0].watts, 232.5);
  EXPECT_EQ(samples[0].domain, kBmcSdrDomain);
  EXPECT_NE(source.method().find("PS1 Input Power + PS2 Input Power"), std::string::npos);
}

TEST_F(BmcPowerSourceTest, GarbageIsAReasonNeverAReading) {
  BmcPowerOptions options;
  options.program = Script("printf 'Instantaneous power reading: \\377\\377 Watts\\n'\n");
  BmcPowerSource source(options);
  for (int i = 0; i < 300 && source.reason().starts_with("no answer"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(source.readings(), 0);
  EXPECT_NE(source.reason().find("unsupported: the BMC has no DCMI power reading"),
            std::string::npos)
      << source.reason();
}

TEST_F(BmcPowerSourceTest, AHungBmcIsKilledAtTheDeadlineAndStopIsPrompt) {
  BmcPowerOptions options;
  options.program = Script("sleep 60\n");
  options.timeout_s = 0.5;
  const auto start = std::chrono::steady_clock::now();
  {
    BmcPowerSource source(options);
    for (int i = 0; i < 300 && source.reason().starts_with("no answer"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(source.reason(),
              "no BMC (ipmitool dcmi power reading did not answer within 0.5 s (killed))");
  }
  // Well before the fake's 60 s (a generous bound: a loaded machine delays the kill by seconds).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // A call in flight when recording stops is killed at once, well before its deadline.
  options.timeout_s = 30;
  BmcPowerSource source(options);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto stop = std::chrono::steady_clock::now();
  source.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stop, std::chrono::seconds(15));
  EXPECT_EQ(source.readings(), 0);
}

}  // namespace
}  // namespace xpuperf::record

// Fuzz-style robustness: every pure parser, fed recorded files damaged in many deterministic ways,
// returns a value or a kParse error and never crashes.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "test_tree.h"
#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/cpu/cpufreq.h"
#include "xpuperf/cpu/meminfo.h"
#include "xpuperf/cpu/proc_stat.h"
#include "xpuperf/cpu/process_stats.h"

namespace xpuperf::cpu {
namespace {

std::string ReadRecorded(const std::string& tree, const std::string& path) {
  std::ifstream in(testing::RecordedTree(tree) + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Truncations, byte substitutions (digits, separators, NUL, high bytes) and deleted spans.
std::vector<std::string> Damaged(const std::string& original, int variants) {
  std::mt19937 random(12345);  // fixed seed: the same inputs every run
  constexpr char kInteresting[] = {'0',  '9', '-', ':',  ' ',    '\t',
                                   '\n', '(', ')', '\0', '\xff', 'x'};
  std::vector<std::string> out;
  for (int i = 0; i < variants; ++i) {
    std::string text = original;
    const size_t at = text.empty() ? 0 : random() % text.size();
    switch (i % 3) {
      case 0:
        text.resize(at);
        break;
      case 1:
        for (int flips = 0; flips < 4 && !text.empty(); ++flips) {
          text[random() % text.size()] = kInteresting[random() % sizeof(kInteresting)];
        }
        break;
      default:
        text.erase(at, random() % 64);
        break;
    }
    out.push_back(std::move(text));
  }
  return out;
}

template <typename T>
void ExpectValueOrParseError(const Result<T>& result, const std::string& input) {
  if (!result.ok()) {
    EXPECT_EQ(result.error().code, ErrorCode::kParse) << input;
  }
}

TEST(ParserRobustnessTest, DamagedRecordedFilesNeverCrashAParser) {
  struct Case {
    std::string tree;
    std::string path;
    std::function<void(const std::string&)> parse;
  };
  const std::vector<Case> cases = {
      {"intel-2s", "/proc/stat",
       [](const std::string& t) { ExpectValueOrParseError(ParseProcStat(t), t); }},
      {"intel-2s", "/proc/meminfo",
       [](const std::string& t) { ExpectValueOrParseError(ParseMemInfo(t), t); }},
      {"amd-zen", "/proc/cpuinfo",
       [](const std::string& t) { ExpectValueOrParseError(ParseCpuInfo(t), t); }},
      {"intel-2s", "/proc/4242/stat",
       [](const std::string& t) { ExpectValueOrParseError(ParseProcessStat(t), t); }},
      {"intel-2s", "/proc/4242/status",
       [](const std::string& t) { ExpectValueOrParseError(ParseStatusResidentBytes(t), t); }},
      {"intel-2s", "/proc/4242/statm",
       [](const std::string& t) { ExpectValueOrParseError(ParseStatmResidentPages(t), t); }},
      {"intel-2s", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
       [](const std::string& t) { ExpectValueOrParseError(ParseScalingCurFreqHertz(t), t); }},
  };
  for (const Case& c : cases) {
    const std::string original = ReadRecorded(c.tree, c.path);
    ASSERT_FALSE(original.empty()) << c.path;
    c.parse(original);
    for (const std::string& damaged : Damaged(original, 300)) c.parse(damaged);
  }
}

}  // namespace
}  // namespace xpuperf::cpu

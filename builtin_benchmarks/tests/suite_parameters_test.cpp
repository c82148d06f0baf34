// Suites are checked against the built-in benchmarks' typed parameter descriptions before anything
// runs: a misspelled key, a fractional or out-of-range value names the suite's line and the key.
#include <gtest/gtest.h>

#include "xpuperf/bench/suite.h"
#include "xpuperf/builtin_benchmarks.h"

namespace xpuperf {
namespace {

TEST(SuiteParametersTest, SuitesAreCheckedBeforeAnythingRuns) {
  const bench::BenchmarkRegistry registry = MakeBuiltinBenchmarkRegistry();
  for (const char* point : {"{mm: 64}", "{m: 64.5}", "{precision: fp16}", "{m: [1, 2]}"}) {
    auto suite = bench::ParseSuite(
        std::string("benchmarks:\n  - benchmark: gemm\n    sweep: [") + point + "]\n", "t.yaml");
    if (!suite.ok()) continue;  // a list value is refused by the parser itself
    Status valid = bench::ValidateSuite(*suite, registry);
    ASSERT_FALSE(valid.ok()) << point;
    EXPECT_NE(valid.error().message.find("t.yaml:2: gemm: "), std::string::npos)
        << valid.error().message;
  }
  // Every built-in suite passes its own benchmarks' descriptions.
  for (const auto& [name, text] : bench::BuiltinSuites()) {
    auto suite = bench::ParseSuite(text, name);
    ASSERT_TRUE(suite.ok()) << name;
    EXPECT_TRUE(bench::ValidateSuite(*suite, registry).ok()) << name;
  }
  // Sampling ranges.
  for (const char* sampling : {"{samples: 0}", "{samples: 1000001}", "{min_sample_seconds: 5}",
                               "{min_sample_seconds: .nan}", "{warmup_samples: -1}"}) {
    auto suite =
        bench::ParseSuite(std::string("sampling: ") + sampling + "\nbenchmarks: []\n", "t.yaml");
    EXPECT_FALSE(suite.ok()) << sampling;
  }
  // The same point twice (written differently, or in two entries, or as the default sweep twice)
  // would write two identical records: refused before anything runs, naming both lines.
  for (const char* benchmarks :
       {"  - benchmark: gemm\n    sweep: [{m: 64}, {m: 64, precision: fp64}]\n",
        "  - benchmark: gemm\n    sweep: [{}]\n  - benchmark: gemm\n    sweep: [{m: 512}]\n",
        "  - benchmark: stream\n  - benchmark: stream\n    sampling: {samples: 3}\n"}) {
    auto suite = bench::ParseSuite(std::string("benchmarks:\n") + benchmarks, "t.yaml");
    ASSERT_TRUE(suite.ok()) << benchmarks;
    Status valid = bench::ValidateSuite(*suite, registry);
    ASSERT_FALSE(valid.ok()) << benchmarks;
    EXPECT_NE(valid.error().message.find("is already measured by the entry of line 2"),
              std::string::npos)
        << valid.error().message;
  }
  // A list as a key is a one-line error, not an uncaught exception.
  EXPECT_FALSE(bench::ParseSuite("? [a, b]\n: 1\n", "t.yaml").ok());
}

}  // namespace
}  // namespace xpuperf

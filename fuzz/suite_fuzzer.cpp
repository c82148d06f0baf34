// libFuzzer target for benchmark suites (YAML): any bytes give a Suite or a one-line error, never
// a crash or an uncaught exception; a suite that parses is checked against the built-in
// benchmarks' typed parameter descriptions, as `bench run --suite FILE` does before running.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/bench/suite.h"
#include "xpuperf/builtin_benchmarks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const xpuperf::bench::BenchmarkRegistry registry = xpuperf::MakeBuiltinBenchmarkRegistry();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto suite = xpuperf::bench::ParseSuite(text, "fuzz.yaml");
  if (suite.ok()) (void)xpuperf::bench::ValidateSuite(*suite, registry);
  return 0;
}

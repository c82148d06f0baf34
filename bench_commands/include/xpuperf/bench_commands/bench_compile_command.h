// `xpuperf bench compile-check --topology NAME [--pjrt-plugin P]`: the PJRT benchmarks' programs
// compiled for a named topology without its devices (libtpu for a TPU slice on a host with no TPU;
// xpuperf/pjrt_bench/compile_check.h).
#pragma once

#include <iosfwd>
#include <string>

namespace xpuperf::bench_commands {

struct BenchCompileOptions {
  std::string topology;        // "v5e:2x2", "v4:2x2x1", ... (the plugin's names)
  std::string plugin = "tpu";  // a path, or "tpu", "cuda", "cpu" for an installed plugin
  bool json = false;
};

// Exit code 0 when every program compiled (a collective skipped on a one-device topology is not a
// failure), 1 when one did not or the plugin or topology is unusable, 2 for a usage error.
int RunBenchCompileCheck(const BenchCompileOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::bench_commands

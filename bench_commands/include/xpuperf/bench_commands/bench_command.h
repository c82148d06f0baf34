// `xpuperf bench run/list/<component>`: the benchmarks of every component (bench's CPU kernels,
// the gpu_* ones, PJRT's, collectives), a suite run into a result directory and its summary.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace xpuperf::bench_commands {

struct BenchOptions {
  std::string action = "run";           // "list", "run", or a component ("compute", "memory")
  std::string suite = "quick";          // built-in suite name or a .yaml path
  std::vector<std::string> only;        // components (compute, memory, ...); empty = all
  std::vector<std::string> benchmarks;  // benchmark names; empty = all in the suite
  std::string out;                      // result directory; empty = results/<run id>
  // --pjrt-plugin PATH: the PJRT plugin of every point that names none (before
  // $XPUPERF_PJRT_PLUGIN and the installed plugins); loaded and checked before anything runs.
  std::string pjrt_plugin;
  // Overrides, each range-checked before anything runs (docs/POLICIES.md): unset = the suite's.
  std::optional<int> threads;                // [1, 4 x the CPUs this process may use]; unset = all
  std::optional<int> samples;                // [1, 100000] kept samples per point
  std::optional<double> min_sample_seconds;  // [1e-6, 1] seconds: a sample ends within a second
  std::optional<double> target_cv;           // [0.001, 10]: adaptive sampling's target
  std::optional<double> max_point_seconds;   // [0, 600]: adaptive sampling's cap per point
  std::optional<double> point_time_cap;      // [0, 86400]: a point's time cap (0 = none)
  // --resume DIR: finish the partial run in DIR (one a stop request ended) with the suite and
  // options it was started with; its measurements are kept and only its pending points run.
  std::string resume;
};

// Runs microbenchmarks: progress on err, the summary table on out, result files under out dir.
// Exit code 0 ok, 1 failure, 2 usage error (bad option, unknown name); 130/143 when SIGINT/SIGTERM
// stopped it, after writing the points finished so far as a partial result directory.
int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::bench_commands

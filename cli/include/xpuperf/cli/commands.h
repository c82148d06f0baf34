// The `xpuperf` commands as functions of parsed options, so tests run them without a process.
// Each returns the process exit code: 0 ok, 1 failure, 2 usage error (bad option, unknown name).
#pragma once

#include <atomic>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// A gate (bench check, compare --fail-on-regression) had nothing to judge: no record, no metric in
// common. Distinct from 1 (a regression or a failed check) so CI can tell "nothing ran" apart.
inline constexpr int kExitNothingToJudge = 3;

// Maps an SDK error to an exit code: unknown names and bad arguments are usage errors.
int ExitCodeFor(const Error& error);

struct CommonOptions {
  std::string root = "/";             // system root (recorded trees in tests)
  std::vector<std::string> backends;  // empty = all available
  std::vector<int> pids;              // processes to report
};

struct DevicesOptions {
  CommonOptions common;
  bool json = false;
  // PJRT plugins (TPU, GPU, CPU) are probed in a child process each, after the backends' devices.
  std::string pjrt_plugin;  // --pjrt-plugin PATH: probe this one first
  bool pjrt = true;         // --no-pjrt: do not look for PJRT plugins
};

struct MetricsOptions {
  CommonOptions common;
  std::vector<std::string> metrics;  // empty = all
  std::vector<std::string> devices;  // empty = all
  bool list = false;                 // print the catalog
  bool json = false;
  bool watch = false;
  double rate_seconds = 1.0;  // refresh period with --watch
  std::optional<int> count;   // with --watch: stop after this many updates [1, 1e9]; unset = until
                              // interrupted
  double window_seconds = 0.5;  // span over which rates are computed for a one-shot snapshot
};

struct TopOptions {
  CommonOptions common;
  double rate_seconds = 1.0;
  std::optional<int> count;  // stop after this many refreshes [1, 1e9]; unset = until q
  bool plain = false;        // force the plain refreshing table even on a terminal
  int processes = 10;        // rows of the process table in plain mode
};

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
};

int RunDevices(const DevicesOptions& options, std::ostream& out, std::ostream& err);
int RunMetrics(const MetricsOptions& options, std::ostream& out, std::ostream& err);
int RunTop(const TopOptions& options, std::ostream& out, std::ostream& err);
// Runs microbenchmarks: progress on err, the summary table on out, result files under out dir.
int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err);

// True once SIGINT/SIGTERM arrived (xpuperf/core/cancellation.h); loops stop at their next wake-up.
bool StopRequested();
// Sleeps up to `seconds`, waking early when a stop is requested. False if stopped.
bool SleepUnlessStopped(double seconds);

// Checks --count: unset, or within [1, 1e9] ("stop after N": 0 would never stop).
Status ValidateCount(const std::optional<int>& count);

// Checks a refresh period in seconds: finite and within [0.05, 3600].
Status ValidateRate(double seconds, std::string_view option);

}  // namespace xpuperf::cli

// The `xpuperf` commands as functions of parsed options, so tests run them without a process.
// Each returns the process exit code: 0 ok, 1 failure, 2 usage error (bad option, unknown name).
#pragma once

#include <atomic>
#include <iosfwd>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

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
  int count = 0;              // with --watch: stop after this many updates (0 = until interrupted)
  double window_seconds = 0.5;  // span over which rates are computed for a one-shot snapshot
};

struct TopOptions {
  CommonOptions common;
  double rate_seconds = 1.0;
  int count = 0;       // stop after this many refreshes (0 = until q)
  bool plain = false;  // force the plain refreshing table even on a terminal
  int processes = 10;  // rows of the process table in plain mode
};

struct BenchOptions {
  std::string action = "run";           // "list", "run", or a component ("compute", "memory")
  std::string suite = "quick";          // built-in suite name or a .yaml path
  std::vector<std::string> only;        // components (compute, memory, ...); empty = all
  std::vector<std::string> benchmarks;  // benchmark names; empty = all in the suite
  std::string out;                      // result directory; empty = results/<run id>
  int threads = 0;                      // 0 = every CPU this process may use
  int samples = 0;                      // > 0 overrides the suite's samples per point
  double min_sample_seconds = 0;        // > 0 overrides the suite's minimum sample length
};

int RunDevices(const DevicesOptions& options, std::ostream& out, std::ostream& err);
int RunMetrics(const MetricsOptions& options, std::ostream& out, std::ostream& err);
int RunTop(const TopOptions& options, std::ostream& out, std::ostream& err);
// Runs microbenchmarks: progress on err, the summary table on out, result files under out dir.
int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err);

// Set by SIGINT/SIGTERM handlers; loops stop at their next wake-up.
std::atomic<bool>& StopRequested();
// Sleeps up to `seconds`, waking early when a stop is requested. False if stopped.
bool SleepUnlessStopped(double seconds);

// Checks a refresh period in seconds: finite and within [0.05, 3600].
Status ValidateRate(double seconds, std::string_view option);

}  // namespace xpuperf::cli

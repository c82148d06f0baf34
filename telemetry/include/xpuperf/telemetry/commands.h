// `xpuperf devices`, `metrics` and `top`: each a function of its options that prints to `out`,
// reports problems on `err` and returns the process exit code (xpuperf/core/exit_code.h), so tests
// run them without a process. cli/app/telemetry_commands.cpp binds the command line into these
// structs.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/core/exit_code.h"

namespace xpuperf::telemetry {

// What every command that opens a session over the backends takes.
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
  std::string format = "table";  // --format table|json|csv (--json is --format json)
  bool watch = false;
  double rate_seconds = 1.0;  // refresh period with --watch
  std::optional<int> count;   // with --watch: stop after this many updates [1, 1e9]; unset = until
                              // interrupted
  double window_seconds = 0.5;  // span over which rates are computed for a one-shot snapshot
  bool tpu_sdk = false;         // --tpu-sdk: every metric of libtpu's SDK as libtpu gives it
};

struct TopOptions {
  CommonOptions common;
  double rate_seconds = 1.0;
  std::optional<int> count;  // stop after this many refreshes [1, 1e9]; unset = until q
  bool plain = false;        // force the plain refreshing table even on a terminal
  int processes = 10;        // rows of the process table in plain mode
};

int RunDevices(const DevicesOptions& options, std::ostream& out, std::ostream& err);
int RunMetrics(const MetricsOptions& options, std::ostream& out, std::ostream& err);
// `metrics --tpu-sdk` (options.format table or json).
int RunTpuSdkListing(const MetricsOptions& options, std::ostream& out, std::ostream& err);
int RunTop(const TopOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::telemetry

// `xpuperf capture`: on-demand traces gathered through the agents of every node, once or on every
// opted-in alert (`--on-alert`). The analysis of what was gathered is handed in (CaptureAnalysis)
// so that capture does not depend on the trace analysis: cli/app/agent_command.cpp passes
// analyze's. cli/app/agent_command.cpp binds the command line into CaptureCommandOptions.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::capture {

struct CaptureCommandOptions {
  std::string hosts;     // comma list
  std::string hostfile;  // or one per line
  std::string jax;       // comma list of HOST:PORT (jax.profiler.start_server)
  int64_t job_id = -1;
  std::string pids;  // comma list
  int64_t duration_ms = 0;
  int64_t iterations = 0;
  int64_t iteration_roundup = 1;
  double start_in_seconds = 10;
  double wait_seconds = 60;
  std::string out_dir;
  std::string capture_id;
  int process_limit = 1000;
  std::string max_file_bytes = "4GiB";
  bool tls = false;
  std::string ca_file, cert_file, key_file;
  std::string credentials_file;  // "user:password"
  bool no_analyze = false;
  bool json = false;  // the analysis as JSON
  // Automatic capture (`--on-alert LISTEN`): an Alertmanager webhook receiver that captures the
  // node an opted-in alert fired for and posts the findings back (capture/alert_receiver.h).
  // --hosts/--hostfile then list the agents it may capture (empty: any).
  std::string on_alert;                    // HOST:PORT, [V6]:PORT, :PORT
  std::vector<std::string> alertmanagers;  // base URLs the findings alerts go to
  std::string alertmanager_ca_file;
  std::string alertmanager_credentials_file;  // "user:password" for Alertmanager's basic auth
  std::string web_config;                     // the receiver's TLS / basic auth
  int agent_port = 1778;
  double cooldown_seconds = 600;
  int max_concurrent = 2;
  int max_captures_per_alert = 50;
  int64_t max_duration_ms = 60000;
  double findings_ttl_seconds = 4 * 3600;
};

// How gathered traces are analysed. Either may be empty (a build without trace analysis): the
// command then says so and keeps the traces.
struct CaptureAnalysis {
  // Prints the analysis of a capture directory on out (JSON when `json`); returns its exit code.
  std::function<int(const std::string& dir, bool json, std::ostream& out, std::ostream& err)> print;
  // A few sentences for a findings alert: what was analysed, the findings, the top ops.
  std::function<Result<std::string>(const std::string& dir)> summarise;
};

inline constexpr int kExitPartial = 3;
// Exit 0 every host gathered, 3 some hosts failed (partial), 1 none gathered, 2 bad options.
int RunCapture(const CaptureCommandOptions& options, const CaptureAnalysis& analysis,
               std::ostream& out, std::ostream& err);
// `capture --on-alert`: serves until SIGINT/SIGTERM (exit 0), 1 when it cannot start, 2 bad
// options.
int RunCaptureOnAlert(const CaptureCommandOptions& options, const CaptureAnalysis& analysis,
                      std::ostream& out, std::ostream& err);
// "a,b,,c" -> {"a", "b", "c"}: the comma lists of --hosts, --pids and --jax.
std::vector<std::string> SplitCommas(const std::string& text);

}  // namespace xpuperf::capture

// `xpuperf agent` (agent/) and `xpuperf capture` (capture/), wired to the command line.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace xpuperf::cli {

struct AgentCommandOptions {
  std::string listen = "127.0.0.1:1778";  // dynolog's port; loopback unless told otherwise
  std::string web_config;                 // TLS / basic auth (required off loopback)
  std::string capture_dir = "/tmp/xpuperf-agent";
  std::string max_file_bytes = "4GiB";
  bool no_ipc = false;
  double process_timeout_seconds = 60;
  int workers = 4;
};

// Serves until SIGINT/SIGTERM. Exit 0 after a clean stop, 1 when it cannot start, 2 bad options.
int RunAgent(const AgentCommandOptions& options, std::ostream& out, std::ostream& err);

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
};

// Exit 0 every host gathered, 3 some hosts failed (partial), 1 none gathered, 2 bad options.
int RunCapture(const CaptureCommandOptions& options, std::ostream& out, std::ostream& err);
inline constexpr int kExitPartial = 3;

}  // namespace xpuperf::cli

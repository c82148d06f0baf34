// `xpuperf agent`: the node agent as a command — its options, checked, and a run until SIGINT or
// SIGTERM. cli/app/agent_command.cpp binds the command line into AgentCommandOptions.
#pragma once

#include <iosfwd>
#include <string>

namespace xpuperf::agent {

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

}  // namespace xpuperf::agent

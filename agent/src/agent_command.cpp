#include "xpuperf/agent/agent_command.h"

#include <ostream>

#include "xpuperf/agent/agent_server.h"
#include "xpuperf/agent/ipc_protocol.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/exporter/metrics_server.h"

namespace xpuperf::agent {

int RunAgent(const AgentCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto listen = exporter::ParseListenAddress(options.listen);
  if (!listen.ok()) {
    err << "xpuperf agent: error: " << listen.error().message << "\n";
    return kExitUsage;
  }
  auto max_bytes = ParseByteSize(options.max_file_bytes, "--max-file-bytes");
  if (!max_bytes.ok()) {
    err << "xpuperf agent: error: " << max_bytes.error().message << "\n";
    return kExitUsage;
  }
  if (!(options.process_timeout_seconds >= 1 && options.process_timeout_seconds <= 86400)) {
    err << "xpuperf agent: error: --process-timeout must be 1..86400 s\n";
    return kExitUsage;
  }
  AgentOptions agent_options;
  agent_options.listen_host = listen->host;
  agent_options.port = listen->port;
  agent_options.web_config_path = options.web_config;
  agent_options.capture_dir = options.capture_dir;
  agent_options.max_file_bytes = *max_bytes;
  agent_options.enable_ipc = !options.no_ipc;
  agent_options.ipc_socket_dir = IpcSocketDirFromEnvironment();
  agent_options.silence_limit =
      std::chrono::milliseconds(static_cast<int64_t>(options.process_timeout_seconds * 1000));
  agent_options.workers = options.workers;
  InstallCancellationHandlers();  // SIGINT/SIGTERM stop the agent cleanly
  auto server = AgentServer::Start(agent_options);
  if (!server.ok()) {
    err << "xpuperf agent: error: " << server.error().message << "\n";
    return server.error().code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  err << "xpuperf agent: listening on " << listen->host << ":" << (*server)->port()
      << ((*server)->tls() ? " (TLS)" : " (plain TCP)") << ", Kineto IPC "
      << (options.no_ipc
              ? "off"
              : "on endpoint 'dynolog' (" +
                    (agent_options.ipc_socket_dir.empty() ? std::string("abstract")
                                                          : "in " + agent_options.ipc_socket_dir) +
                    ")")
      << ", captures in " << options.capture_dir << "\n";
  err.flush();
  while (SleepUnlessCancelled(0.2)) {
  }
  (*server)->Stop();
  err << "xpuperf agent: stopped\n";
  (void)out;
  return kExitOk;
}

}  // namespace xpuperf::agent

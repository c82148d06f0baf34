// `xpuperf agent`: one per node. A TCP server speaking dynolog's RPC (rpc_protocol.h, answers in
// rpc_handler.h) and the daemon side of Kineto's IPC fabric (ipc_protocol.h), with the registry
// of live processes between them.
//
// Security: it listens on loopback unless told otherwise; any other address needs a web config
// (the same file as `serve --web-config`) with TLS or basic-auth users, and then every request is
// checked against it. Traces are written only under the capture directory and only finished files
// of a capture are served from it (capture_store.h). Requests are bounded (kMaxRequestBytes) and
// each connection has read/write timeouts.
//
// Thread-safety: Start/Stop from one thread; the server runs on its own threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "xpuperf/agent/capture_store.h"
#include "xpuperf/agent/ipc_protocol.h"
#include "xpuperf/agent/process_registry.h"
#include "xpuperf/agent/rpc_protocol.h"
#include "xpuperf/core/status.h"

namespace xpuperf::agent {

struct AgentOptions {
  std::string listen_host = "127.0.0.1";  // "::" = every interface (dual stack), "0.0.0.0"
  int port = kDefaultRpcPort;             // 0 = the OS picks one (tests)
  std::string web_config_path;            // TLS and basic auth; required off loopback
  std::string capture_dir = kDefaultCaptureRoot;
  uint64_t max_file_bytes = kDefaultMaxFileBytes;
  bool enable_ipc = true;  // Kineto's fabric (dynolog's --enable_ipc_monitor)
  std::string ipc_name = kDaemonEndpointName;
  std::string ipc_socket_dir;  // KINETO_IPC_SOCKET_DIR; "" = abstract names
  std::chrono::milliseconds silence_limit = std::chrono::seconds(60);
  int workers = 4;                 // connections served at once
  double io_timeout_seconds = 10;  // per read/write on a connection
  std::string hostname;            // for trace ids; "" = gethostname()
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(const std::string& host);

class AgentServer {
 public:
  // Binds the TCP port and the IPC endpoint (an address in use, a bad web config, a remote address
  // without TLS or users are errors here) and starts serving.
  static Result<std::unique_ptr<AgentServer>> Start(const AgentOptions& options);
  ~AgentServer();  // stops

  int port() const;
  bool tls() const;
  ProcessRegistry& registry();
  void Stop();

  class Impl;

 private:
  explicit AgentServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::agent

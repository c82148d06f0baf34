// The HTTP(S) side of `xpuperf serve`: /metrics (text 0.0.4 or OpenMetrics by Accept, gzip by
// Accept-Encoding), /health, /api/v1/snapshot and a landing page at /. Only GET and HEAD; no file
// is ever served from disk. Scrapes only read the exporter's latest snapshot (rendered once per
// snapshot and format, then served from memory), so they never wait for hardware.
// Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "xpuperf/core/status.h"
#include "xpuperf/exporter/exporter.h"

namespace xpuperf::exporter {

inline constexpr int kDefaultPort = 10877;

struct ListenAddress {
  std::string host;  // "127.0.0.1", "0.0.0.0" (all IPv4), "::1", "::" (all, dual stack)
  int port = 0;      // 0 = the OS picks one (tests)
};

// "HOST:PORT", "[V6]:PORT", ":PORT" (every interface, as in the DaemonSet) or "PORT" (loopback).
Result<ListenAddress> ParseListenAddress(std::string_view text);

struct ServerOptions {
  ListenAddress listen{"127.0.0.1", kDefaultPort};
  std::string web_config_path;  // empty = plain HTTP without auth
  // Requests answered at once (workers). Connections that are still sending their request, or
  // idle between keep-alive requests, wait on the event loop and hold no worker.
  int max_connections = 64;
  int max_open_connections = 1024;       // at the cap the longest-waiting idle connection is closed
  int max_connections_per_client = 256;  // per remote address; more are closed at accept
  double read_timeout_seconds = 5;       // a request's head (from its first byte), a TLS handshake,
                                         // and the wait between keep-alive requests
  double write_timeout_seconds = 10;
  // Body of /api/v1/snapshot (the `metrics --json` document); empty = 404.
  std::function<std::string(const RawSnapshot&)> snapshot_json;
};

class MetricsServer {
 public:
  // Binds (a port in use or a bad web config is an error here, before anything is served) and
  // starts serving on its own threads. `exporter` must outlive the server.
  static Result<std::unique_ptr<MetricsServer>> Start(Exporter& exporter, ServerOptions options);
  ~MetricsServer();  // stops

  int port() const;  // the bound port
  bool tls() const;
  // Re-reads the web config (SIGHUP). On error the running config stays and the error is returned.
  // New TLS settings take effect by re-binding the same port (a few milliseconds without a
  // listener); new users at once.
  Status Reload();
  void Stop();

  class Impl;

 private:
  explicit MetricsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::exporter

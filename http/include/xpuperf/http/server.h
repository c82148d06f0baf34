// The HTTP/1.1 (and HTTPS) server of `serve` and `capture --on-alert`.
//
// One event-loop thread accepts connections, runs TLS handshakes and reads requests without
// blocking, each under its deadline; only a complete, bounded request reaches a worker, which runs
// the handler and writes the answer under the write deadline, then hands the connection back for
// the next keep-alive request (pipelined requests included). So a client that trickles its head,
// its body or a ClientHello holds one descriptor and at most one request's bytes, never a worker:
//  - a request's head and body must arrive within `request_timeout_seconds` of its first byte,
//    a TLS handshake within the same time of the accept, a keep-alive connection's next request
//    start within `idle_timeout_seconds`; late ones get 408 (best effort) and are closed;
//  - at most `max_connections_per_client` open connections per remote address (more are closed at
//    accept) and `max_open_connections` in all (at the cap, the longest-waiting connection that is
//    not being answered is closed to make room);
//  - heads, lines, header counts and bodies are bounded by `limits` (request_parser.h).
// Stop() never waits on a peer: loop and workers end within a few hundred milliseconds.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/http/request_parser.h"

namespace xpuperf::http {

struct Response {
  int status = 200;
  std::vector<Header> headers;
  // Shared so that a cached body (the exposition) is served without a copy.
  std::shared_ptr<const std::string> body;

  void SetHeader(std::string name, std::string value);
  void SetBody(std::string text, std::string content_type);
  void SetSharedBody(std::shared_ptr<const std::string> text, std::string content_type);
};

using Handler = std::function<void(const Request&, Response&)>;

struct ServerOptions {
  std::string host = "127.0.0.1";  // an address: 127.0.0.1, 0.0.0.0, ::1, ::
  int port = 0;                    // 0 = the OS picks one
  int workers = 8;                 // requests answered at once
  int max_open_connections = 1024;
  int max_connections_per_client = 256;
  double request_timeout_seconds = 5;  // a request's head and body; a TLS handshake
  double idle_timeout_seconds = 5;     // a keep-alive connection's wait for its next request
  double write_timeout_seconds = 10;   // one answer
  int max_requests_per_connection = 1000;
  Limits limits;
  // Set: HTTPS with a context this configures (certificate, key, client policy); its error is
  // Start's error.
  std::function<Status(SSL_CTX&)> configure_tls;
};

struct ServerStats {
  uint64_t accepted = 0;
  uint64_t refused_per_client = 0;  // over max_connections_per_client at accept
  uint64_t evicted = 0;             // closed to make room at max_open_connections
  uint64_t timed_out = 0;           // request, handshake or idle deadline passed
  uint64_t bad_requests = 0;        // refused by the parser (4xx/5xx before a handler)
  uint64_t handshake_failures = 0;
  uint64_t answered = 0;  // responses written in full
};

class Server {
 public:
  // Binds and listens (errors here: address in use, not an address of this host, bad TLS), then
  // serves on its own threads until Stop() or destruction.
  static Result<std::unique_ptr<Server>> Start(ServerOptions options, Handler handler);
  ~Server();  // stops

  int port() const;
  bool tls() const;
  ServerStats stats() const;
  void Stop();  // idempotent

  class Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::http

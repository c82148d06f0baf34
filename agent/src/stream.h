// One TCP connection, plain or TLS (OpenSSL), with whole-message reads and writes bounded by the
// socket's timeouts and, when set, by an overall deadline: a peer that trickles a byte at a time
// keeps every single read within its timeout, but never the whole message past the deadline. A
// SIGINT/SIGTERM (core/cancellation.h) ends a wait within 100 ms. Thread-safety: one object per
// thread.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::agent {

class Stream {
 public:
  Stream(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Every later read and write ends by `seconds` from now (0: only the socket's timeouts).
  void SetDeadline(double seconds);

  Status ReadExact(char* out, size_t bytes);
  Status WriteAll(std::string_view bytes);
  // One framed message (length header + JSON) of at most max_bytes.
  Result<std::string> ReadFrame(int32_t max_bytes);

 private:
  // Waits until the socket is ready for `events`, the deadline passes or a stop is requested.
  Status WaitReady(short events);

  int fd_;
  SSL* ssl_;                 // owned; null for plain TCP
  int64_t deadline_ns_ = 0;  // CLOCK_MONOTONIC; 0 = none
  double deadline_seconds_ = 0;
};

// Applies send/receive timeouts (seconds) to a socket.
void SetSocketTimeouts(int fd, double seconds);

}  // namespace xpuperf::agent

// One TCP connection, plain or TLS (OpenSSL), with whole-message reads and writes bounded by the
// socket's timeouts. Thread-safety: one object per thread.
#pragma once

#include <openssl/ssl.h>

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

  Status ReadExact(char* out, size_t bytes);
  Status WriteAll(std::string_view bytes);
  // One framed message (length header + JSON) of at most max_bytes.
  Result<std::string> ReadFrame(int32_t max_bytes);

 private:
  int fd_;
  SSL* ssl_;  // owned; null for plain TCP
};

// Applies send/receive timeouts (seconds) to a socket.
void SetSocketTimeouts(int fd, double seconds);

}  // namespace xpuperf::agent

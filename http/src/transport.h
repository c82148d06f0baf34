// One accepted connection's byte stream: a non-blocking socket, optionally under TLS. Used by one
// thread at a time (the event loop while reading, a worker while answering).
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <string_view>

namespace xpuperf::http {

class Transport {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Io { kOk, kWouldBlock, kClosed, kError };

  Transport(int fd, SSL* ssl);  // takes ownership of both; `ssl` may be null (plain TCP)
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int fd() const { return fd_; }
  bool tls() const { return ssl_ != nullptr; }
  // The last kWouldBlock waits for the socket to become writable (TLS renegotiation/handshake).
  bool wants_write() const { return wants_write_; }
  // TLS: decrypted bytes already buffered (poll will not report them).
  bool has_buffered() const;

  Io Handshake();  // one non-blocking step of the TLS handshake
  Io Read(char* buffer, size_t size, size_t& read);
  // Writes all of `data` before `deadline`; false on error, deadline or `stop`.
  bool WriteAll(std::string_view data, Clock::time_point deadline, const std::atomic<bool>& stop);
  // One non-blocking attempt at a short message (an error answer from the event loop).
  void TryWrite(std::string_view data);
  // No more writes: TLS close_notify, then the socket's write side (reads go on).
  void ShutdownWrite();

 private:
  Io TlsResult(int ret);

  int fd_;
  SSL* ssl_;
  bool wants_write_ = false;
};

}  // namespace xpuperf::http

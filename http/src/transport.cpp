#include "transport.h"

#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace xpuperf::http {

Transport::Transport(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}

Transport::~Transport() {
  if (ssl_ != nullptr) {
    ERR_clear_error();
    SSL_shutdown(ssl_);  // one non-blocking close_notify, best effort
    SSL_free(ssl_);
  }
  ::close(fd_);
}

bool Transport::has_buffered() const { return ssl_ != nullptr && SSL_pending(ssl_) > 0; }

Transport::Io Transport::TlsResult(int ret) {
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_WANT_READ:
      wants_write_ = false;
      return Io::kWouldBlock;
    case SSL_ERROR_WANT_WRITE:
      wants_write_ = true;
      return Io::kWouldBlock;
    case SSL_ERROR_ZERO_RETURN:
      return Io::kClosed;
    default:
      return Io::kError;
  }
}

Transport::Io Transport::Handshake() {
  ERR_clear_error();
  const int ret = SSL_do_handshake(ssl_);
  if (ret == 1) {
    wants_write_ = false;
    return Io::kOk;
  }
  return TlsResult(ret);
}

Transport::Io Transport::Read(char* buffer, size_t size, size_t& read) {
  read = 0;
  if (ssl_ != nullptr) {
    ERR_clear_error();
    if (SSL_read_ex(ssl_, buffer, size, &read) == 1) return Io::kOk;
    return TlsResult(0);
  }
  const ssize_t n = ::recv(fd_, buffer, size, 0);
  if (n > 0) {
    read = static_cast<size_t>(n);
    return Io::kOk;
  }
  if (n == 0) return Io::kClosed;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Io::kWouldBlock;
  return Io::kError;
}

bool Transport::WriteAll(std::string_view data, Clock::time_point deadline,
                         const std::atomic<bool>& stop) {
  while (!data.empty()) {
    if (stop.load()) return false;
    size_t written = 0;
    Io result = Io::kOk;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      result = SSL_write_ex(ssl_, data.data(), data.size(), &written) == 1 ? Io::kOk : TlsResult(0);
    } else {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n >= 0) {
        written = static_cast<size_t>(n);
      } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        result = Io::kWouldBlock;
        wants_write_ = true;
      } else {
        result = Io::kError;
      }
    }
    if (result == Io::kClosed || result == Io::kError) return false;
    data.remove_prefix(written);
    if (result != Io::kWouldBlock) continue;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    // Short waits, so that a stop is seen at once whatever the peer does.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    pollfd p{fd_, static_cast<short>(wants_write_ ? POLLOUT : POLLIN), 0};
    ::poll(&p, 1, static_cast<int>(std::clamp<int64_t>(left.count(), 1, 100)));
  }
  return true;
}

void Transport::ShutdownWrite() {
  if (ssl_ != nullptr) {
    ERR_clear_error();
    SSL_shutdown(ssl_);
  }
  ::shutdown(fd_, SHUT_WR);
}

void Transport::TryWrite(std::string_view data) {
  if (ssl_ != nullptr) {
    ERR_clear_error();
    size_t written = 0;
    SSL_write_ex(ssl_, data.data(), data.size(), &written);
    return;
  }
  (void)::send(fd_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace xpuperf::http

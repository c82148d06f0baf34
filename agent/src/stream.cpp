#include "stream.h"

#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "xpuperf/agent/rpc_protocol.h"
#include "xpuperf/core/cancellation.h"

namespace xpuperf::agent {

Stream::~Stream() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  if (fd_ >= 0) close(fd_);
}

namespace {
int64_t NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}
}  // namespace

void Stream::SetDeadline(double seconds) {
  deadline_seconds_ = seconds;
  deadline_ns_ = seconds > 0 ? NowNs() + static_cast<int64_t>(seconds * 1e9) : 0;
}

Status Stream::WaitReady(short events) {
  if (ssl_ != nullptr && (events & POLLIN) != 0 && SSL_pending(ssl_) > 0) return {};
  while (true) {
    if (CancellationRequested()) {
      return MakeError(ErrorCode::kIo, "stopped by a signal while waiting for the agent");
    }
    int wait_ms = 100;
    if (deadline_ns_ != 0) {
      const int64_t left_ns = deadline_ns_ - NowNs();
      if (left_ns <= 0) {
        char text[96];
        std::snprintf(text, sizeof(text), "no whole message within %.3g s (the overall deadline)",
                      deadline_seconds_);
        return MakeError(ErrorCode::kIo, text);
      }
      wait_ms = static_cast<int>(std::min<int64_t>(100, left_ns / 1'000'000 + 1));
    }
    pollfd waiter{fd_, events, 0};
    const int ready = poll(&waiter, 1, wait_ms);
    if (ready > 0) return {};
    if (ready < 0 && errno != EINTR) {
      return MakeError(ErrorCode::kIo, std::string("poll: ") + std::strerror(errno));
    }
  }
}

Status Stream::ReadExact(char* out, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    XPUPERF_RETURN_IF_ERROR(WaitReady(POLLIN));
    ssize_t got;
    if (ssl_ != nullptr) {
      const int n =
          SSL_read(ssl_, out + done, static_cast<int>(std::min<size_t>(bytes - done, 1 << 30)));
      if (n <= 0) {
        ERR_clear_error();
        return MakeError(ErrorCode::kIo, "TLS read failed or the peer closed the connection");
      }
      got = n;
    } else {
      got = recv(fd_, out + done, bytes - done, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        return MakeError(ErrorCode::kIo, errno == EAGAIN
                                             ? std::string("read timed out")
                                             : std::string("read: ") + std::strerror(errno));
      }
      if (got == 0) return MakeError(ErrorCode::kIo, "the peer closed the connection");
    }
    done += static_cast<size_t>(got);
  }
  return {};
}

Status Stream::WriteAll(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    XPUPERF_RETURN_IF_ERROR(WaitReady(POLLOUT));
    ssize_t sent;
    if (ssl_ != nullptr) {
      const int n = SSL_write(ssl_, bytes.data() + done,
                              static_cast<int>(std::min<size_t>(bytes.size() - done, 1 << 30)));
      if (n <= 0) {
        ERR_clear_error();
        return MakeError(ErrorCode::kIo, "TLS write failed");
      }
      sent = n;
    } else {
      sent = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0) return MakeError(ErrorCode::kIo, std::string("write: ") + std::strerror(errno));
    }
    done += static_cast<size_t>(sent);
  }
  return {};
}

Result<std::string> Stream::ReadFrame(int32_t max_bytes) {
  char header[kFrameHeaderBytes];
  XPUPERF_RETURN_IF_ERROR(ReadExact(header, sizeof(header)));
  XPUPERF_ASSIGN_OR_RETURN(int32_t length,
                           ParseFrameLength(std::string_view(header, sizeof(header)), max_bytes));
  std::string body(static_cast<size_t>(length), '\0');
  XPUPERF_RETURN_IF_ERROR(ReadExact(body.data(), body.size()));
  return body;
}

void SetSocketTimeouts(int fd, double seconds) {
  timeval timeout{};
  timeout.tv_sec = static_cast<time_t>(seconds);
  timeout.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(timeout.tv_sec)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
}

}  // namespace xpuperf::agent

#include "xpuperf/core/tcp_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace xpuperf {

bool IsGrpcTransportFailure(std::string_view detail) {
  for (std::string_view marker :
       {"failed to connect to all addresses", "Socket closed", "Connection reset", "http1",
        "connections to all backends failing", "Broken pipe", "handshake", "GOAWAY",
        "End of TCP stream", "Endpoint closing", "FD shutdown", "Connection refused"}) {
    if (detail.find(marker) != std::string_view::npos) return true;
  }
  return detail.empty();
}

bool AcceptsTcpConnections(const std::string& target, std::chrono::milliseconds timeout) {
  const size_t colon = target.find_last_of(':');
  if (colon == std::string::npos) return false;
  std::string host = target.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port = target.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &addresses) != 0) return false;
  bool accepted = false;
  for (const addrinfo* a = addresses; a != nullptr && !accepted; a = a->ai_next) {
    const int fd =
        socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      accepted = true;
    } else if (errno == EINPROGRESS) {
      pollfd waiting{fd, POLLOUT, 0};
      int error = 0;
      socklen_t length = sizeof(error);
      accepted = poll(&waiting, 1, static_cast<int>(timeout.count())) == 1 &&
                 getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
    }
    close(fd);
  }
  freeaddrinfo(addresses);
  return accepted;
}

}  // namespace xpuperf

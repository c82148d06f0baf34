// The listening socket: SO_REUSEADDR (a restart may rebind a port with TIME_WAIT connections),
// never SO_REUSEPORT (a second server must not silently take half of the requests), dual stack on
// "::", a backlog of 1024 (the kernel caps it at net.core.somaxconn), non-blocking.
#pragma once

#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::http {

struct ListeningSocket {
  int fd = -1;
  int port = 0;
};

Result<ListeningSocket> Listen(const std::string& host, int port);

// The peer's address as text; an IPv4-mapped IPv6 address as plain IPv4.
std::string PeerAddress(int fd);

}  // namespace xpuperf::http

#pragma once

#include <httplib.h>

#include <memory>

namespace xpuperf::exporter {

// The listening socket of an httplib::Server, set up the way a busy exporter needs.
//
// Debian's cpp-httplib is a compiled library whose listen() uses a backlog of 5: a burst of
// reconnects (many keep-alive connections reaching their request limit together) overflows it,
// the kernel drops the SYNs, and each dropped SYN costs its client 1, 3, then 7 s of
// retransmission. It also sets SO_REUSEPORT, which lets a second server bind the same port and
// silently take half of its scrapes. ListenSocket replaces the library's socket options with
// SO_REUSEADDR alone (a restart may rebind a port that still has TIME_WAIT connections), notes
// the descriptor, and after a successful bind raises the backlog with a second listen() (Linux
// updates a listening socket's backlog in place; the kernel caps it at net.core.somaxconn).
class ListenSocket {
 public:
  static constexpr int kBacklog = 1024;

  // Installs the socket options on `server`; call before bind_to_port / bind_to_any_port.
  explicit ListenSocket(httplib::Server& server);

  // After a successful bind: raises the backlog of the bound socket. False when it could not.
  bool RaiseBacklog() const;

 private:
  std::shared_ptr<int> descriptor_ = std::make_shared<int>(-1);
};

}  // namespace xpuperf::exporter

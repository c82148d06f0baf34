#include "listen_socket.h"

#include <sys/socket.h>

namespace xpuperf::exporter {

ListenSocket::ListenSocket(httplib::Server& server) {
  server.set_socket_options([descriptor = descriptor_](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    *descriptor = sock;  // the last socket tried is the one that bound
  });
}

bool ListenSocket::RaiseBacklog() const {
  return *descriptor_ >= 0 && ::listen(*descriptor_, kBacklog) == 0;
}

}  // namespace xpuperf::exporter

// The exporter's listening socket: a backlog that holds a burst of reconnects, and a port that a
// second server cannot share.
#include "listen_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

namespace xpuperf::exporter {
namespace {

// Connects `n` non-blocking sockets to 127.0.0.1:port and counts those whose handshake completes
// within `wait`. Nothing accepts meanwhile, so the count is what the accept queue holds: a SYN
// that finds the queue full is dropped and its connect stays pending for a second or more.
int ConnectionsTheQueueHolds(int port, int n, std::chrono::milliseconds wait) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  std::vector<pollfd> sockets;
  for (int i = 0; i < n; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
    sockets.push_back({fd, POLLOUT, 0});
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  int connected = 0;
  for (pollfd& p : sockets) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count()))) == 1) {
      int error = 0;
      socklen_t size = sizeof(error);
      getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &error, &size);
      if (error == 0) ++connected;
    }
    close(p.fd);
  }
  return connected;
}

TEST(ListenSocketTest, TheAcceptQueueHoldsABurstOfReconnects) {
  httplib::Server server;
  const ListenSocket socket(server);
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  // The library's own backlog of 5 holds six connections; 200 must all complete their handshake.
  ASSERT_TRUE(socket.RaiseBacklog());
  EXPECT_EQ(ConnectionsTheQueueHolds(port, 200, std::chrono::milliseconds(500)), 200);
}

TEST(ListenSocketTest, WithoutItTheLibraryQueueOverflows) {
  // The referee: the same burst against the library's default socket drops SYNs. If a future
  // cpp-httplib raises its own backlog, this test says so and ListenSocket can go.
  httplib::Server server;
  const int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  EXPECT_LT(ConnectionsTheQueueHolds(port, 200, std::chrono::milliseconds(500)), 200);
}

TEST(ListenSocketTest, ASecondServerCannotBindTheSamePort) {
  httplib::Server first;
  const ListenSocket first_socket(first);
  const int port = first.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  httplib::Server second;
  const ListenSocket second_socket(second);
  EXPECT_FALSE(second.bind_to_port("127.0.0.1", port));
  EXPECT_FALSE(second_socket.RaiseBacklog());
}

}  // namespace
}  // namespace xpuperf::exporter

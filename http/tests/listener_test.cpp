// The listening socket: a backlog that holds a burst of reconnects, and a port that a second
// server cannot share.
#include "listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

namespace xpuperf::http {
namespace {

// Connects `n` non-blocking sockets to 127.0.0.1:port and counts those whose handshake completes
// within `wait` (a generous
// wait: a dropped SYN is retried only after a second). Nothing accepts meanwhile, so the count is
// what the accept queue holds: a SYN that finds the queue full is dropped and its connect stays
// pending for a second or more.
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

TEST(ListenerTest, TheAcceptQueueHoldsABurstOfReconnects) {
  auto socket = Listen("127.0.0.1", 0);
  ASSERT_TRUE(socket.ok()) << socket.error().message;
  ASSERT_GT(socket->port, 0);
  // A backlog of 5 (cpp-httplib's) held six connections; 200 must all complete their handshake.
  EXPECT_EQ(ConnectionsTheQueueHolds(socket->port, 200, std::chrono::milliseconds(900)), 200);
  close(socket->fd);
}

TEST(ListenerTest, ASecondServerCannotBindTheSamePort) {
  auto first = Listen("127.0.0.1", 0);
  ASSERT_TRUE(first.ok());
  auto second = Listen("127.0.0.1", first->port);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("in use"), std::string::npos) << second.error().message;
  close(first->fd);
}

TEST(ListenerTest, DualStackOnTheWildcard) {
  auto any = Listen("::", 0);
  if (!any.ok()) GTEST_SKIP() << "no IPv6 here: " << any.error().message;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(any->port));
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  close(fd);
  close(any->fd);
}

}  // namespace
}  // namespace xpuperf::http

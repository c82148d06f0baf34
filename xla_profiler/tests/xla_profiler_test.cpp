#include "xpuperf/xla_profiler/xla_profiler.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "xpuperf/core/protobuf_wire.h"

namespace xpuperf::xla_profiler {
namespace {

using wire::WireField;
using wire::WireReader;
using wire::WireType;

TEST(ProfileRequestTest, EncodesTheFieldsTheServerReads) {
  XlaProfileRequest request;
  request.address = "localhost:9012";
  request.duration_ms = 1500;
  request.start_timestamp_ns = 1'700'000'000'123'456'789ull;
  request.host_name = "worker-3";
  const std::string bytes = EncodeProfileRequest(request, "2026_12_01_10_00_00");

  WireReader reader(bytes);
  WireField field;
  uint64_t duration = 0, max_events = 0;
  bool emit_xspace = false;
  std::string host, session, tool, opts;
  while (reader.Next(&field)) {
    if (field.number == 1) duration = field.value;
    if (field.number == 2) max_events = field.value;
    if (field.number == 3) tool = std::string(field.bytes);
    if (field.number == 4) opts = std::string(field.bytes);
    if (field.number == 6) session = std::string(field.bytes);
    if (field.number == 7) host = std::string(field.bytes);
    if (field.number == 9) emit_xspace = field.value != 0;
  }
  ASSERT_TRUE(reader.status().ok());
  EXPECT_EQ(duration, 1500u);
  EXPECT_EQ(max_events, 1'000'000u);
  EXPECT_EQ(tool, "xplane.pb");
  EXPECT_EQ(session, "2026_12_01_10_00_00");
  EXPECT_EQ(host, "worker-3");
  EXPECT_TRUE(emit_xspace);

  WireReader opts_reader(opts);
  uint64_t version = 0, start = 0, opts_duration = 0, host_level = 9, device_level = 9;
  while (opts_reader.Next(&field)) {
    if (field.number == 2) host_level = field.value;
    if (field.number == 3) device_level = field.value;
    if (field.number == 5) version = field.value;
    if (field.number == 8) start = field.value;
    if (field.number == 9) opts_duration = field.value;
  }
  ASSERT_TRUE(opts_reader.status().ok());
  EXPECT_EQ(version, 1u);  // else the server ignores start_timestamp_ns
  EXPECT_EQ(start, request.start_timestamp_ns);
  EXPECT_EQ(opts_duration, 1500u);
  EXPECT_EQ(host_level, 2u);
  EXPECT_EQ(device_level, 1u);
}

TEST(ProfileRequestTest, HostNameDefaultsToTheAddress) {
  XlaProfileRequest request;
  request.address = "10.0.0.7:9999";
  const std::string bytes = EncodeProfileRequest(request, "");
  WireReader reader(bytes);
  WireField field;
  std::string host;
  bool session = false;
  while (reader.Next(&field)) {
    if (field.number == 7) host = std::string(field.bytes);
    if (field.number == 6) session = true;
  }
  EXPECT_EQ(host, "10.0.0.7:9999");
  EXPECT_FALSE(session);
}

TEST(ProfileResponseTest, FindsTheXSpaceAndEmptyTrace) {
  wire::WireWriter tool;
  tool.Bytes(1, "trace_viewer");
  wire::WireWriter response;
  response.Bytes(6, tool.data());
  response.Bool(7, true);
  response.Bytes(8, std::string("\x0a\x02\x12\x00", 4));
  auto decoded = DecodeProfileResponse(response.data());
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_TRUE(decoded->has_xspace);
  EXPECT_TRUE(decoded->empty_trace);
  EXPECT_EQ(decoded->xspace.size(), 4u);

  auto none = DecodeProfileResponse("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_xspace);
}

TEST(ProfileResponseTest, MalformedBytesAreAParseError) {
  // Field 8, length 100, 2 bytes present.
  auto decoded = DecodeProfileResponse(std::string("\x42\x64\x01\x02", 4));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, ErrorCode::kParse);
  EXPECT_NE(decoded.error().message.find("remain"), std::string::npos) << decoded.error().message;
}

TEST(AddressTest, NormalisesAndRejects) {
  EXPECT_EQ(NormaliseProfilerAddress("9999").value(), "localhost:9999");
  EXPECT_EQ(NormaliseProfilerAddress("node-1:80").value(), "node-1:80");
  EXPECT_EQ(NormaliseProfilerAddress("[::1]:9012").value(), "[::1]:9012");
  for (const char* bad :
       {"", "host:", "host:0", "host:65536", "host:12x", ":80", "::1:80", "[::1]9012", "a b:1"}) {
    auto result = NormaliseProfilerAddress(bad);
    EXPECT_FALSE(result.ok()) << bad;
    if (!result.ok()) {
      EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
}

// A loopback port with nothing listening: bound then closed.
int UnusedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST(ProfileXlaServerTest, NoServerFailsFastAndSaysSo) {
  XlaProfileRequest request;
  request.address = "127.0.0.1:" + std::to_string(UnusedPort());
  request.duration_ms = 100;
  const auto start = std::chrono::steady_clock::now();
  auto result = ProfileXlaServer(request);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result.ok());
  if (!XlaProfilerSupported()) {
    EXPECT_EQ(result.error().code, ErrorCode::kUnsupported);
    EXPECT_NE(result.error().message.find("unsupported: built without gRPC"), std::string::npos);
    return;
  }
  EXPECT_EQ(result.error().code, ErrorCode::kUnavailable) << result.error().message;
  EXPECT_NE(result.error().message.find("no XLA profiler server answers"), std::string::npos)
      << result.error().message;
  EXPECT_LT(elapsed, std::chrono::seconds(20));
}

// An HTTP/1 server on the port (a wrong port number): named as something else, not "no server".
TEST(ProfileXlaServerTest, AnHttpServerOnThePortIsNamedAsSuch) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(listener, 16), 0);
  socklen_t len = sizeof(addr);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::atomic<bool> stop{false};
  std::thread http([&] {
    while (!stop) {
      pollfd p{listener, POLLIN, 0};
      if (poll(&p, 1, 50) != 1) continue;
      const int client = accept(listener, nullptr, nullptr);
      char buffer[4096];
      (void)recv(client, buffer, sizeof(buffer), 0);
      const char answer[] =
          "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)send(client, answer, sizeof(answer) - 1, MSG_NOSIGNAL);
      close(client);
    }
  });
  XlaProfileRequest request;
  request.address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  request.duration_ms = 100;
  auto result = ProfileXlaServer(request);
  stop = true;
  http.join();
  close(listener);
  ASSERT_FALSE(result.ok());
  if (!XlaProfilerSupported()) return;
  EXPECT_NE(result.error().message.find("accepts connections but is not an XLA profiler"),
            std::string::npos)
      << result.error().message;
}

TEST(ProfileXlaServerTest, RejectsBadArguments) {
  XlaProfileRequest request;
  request.address = "localhost:1";
  request.duration_ms = 0;
  auto result = ProfileXlaServer(request);
  ASSERT_FALSE(result.ok());
  if (XlaProfilerSupported()) {
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace xpuperf::xla_profiler

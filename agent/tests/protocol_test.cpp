#include <gtest/gtest.h>

#include "xpuperf/agent/ipc_protocol.h"
#include "xpuperf/agent/ondemand_config.h"
#include "xpuperf/agent/rpc_protocol.h"

namespace xpuperf::agent {
namespace {

TEST(RpcProtocol, FramesAreLittleEndianLengthThenJson) {
  const std::string frame = FrameMessage(R"({"fn":"getStatus"})");
  ASSERT_EQ(frame.size(), 4u + 18u);
  EXPECT_EQ(frame[0], 18);
  EXPECT_EQ(frame[1], 0);
  auto length = ParseFrameLength(frame.substr(0, 4), kMaxRequestBytes);
  ASSERT_TRUE(length.ok());
  EXPECT_EQ(*length, 18);
}

TEST(RpcProtocol, RefusesNonPositiveAndOversizedLengths) {
  EXPECT_FALSE(ParseFrameLength(std::string("\0\0\0\0", 4), kMaxRequestBytes).ok());
  EXPECT_FALSE(ParseFrameLength("\xff\xff\xff\xff", kMaxRequestBytes).ok());  // -1
  EXPECT_FALSE(ParseFrameLength(FrameMessage(std::string(100, 'x')).substr(0, 4), 99).ok());
  EXPECT_FALSE(ParseFrameLength("ab", kMaxRequestBytes).ok());
}

TEST(RpcProtocol, RequestNeedsAnObjectWithAStringFn) {
  EXPECT_TRUE(ParseRpcRequest(R"({"fn":"getVersion"})").ok());
  EXPECT_FALSE(ParseRpcRequest("{").ok());
  EXPECT_FALSE(ParseRpcRequest("[1]").ok());
  EXPECT_FALSE(ParseRpcRequest(R"({"fn":3})").ok());
  EXPECT_FALSE(ParseRpcRequest(R"({"x":"getStatus"})").ok());
}

TEST(IpcProtocol, ReqDatagramWithOnePidIs60Bytes) {
  KinetoRequest request;
  request.job_id = 42;
  request.pids = {1234};
  const std::string datagram = EncodeIpcDatagram("req", EncodeKinetoRequest(request));
  EXPECT_EQ(datagram.size(), 60u);  // 40-byte header + 16 + 4
  auto message = ParseIpcDatagram(datagram);
  ASSERT_TRUE(message.ok());
  EXPECT_EQ(message->type, "req");
  auto parsed = ParseKinetoRequest(message->payload);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->job_id, 42);
  EXPECT_EQ(parsed->type, kActivityProfilerBit);
  EXPECT_EQ(parsed->pids, std::vector<int32_t>{1234});
}

TEST(IpcProtocol, RefusesInconsistentDatagrams) {
  std::string datagram = EncodeIpcDatagram("req", std::string(20, '\0'));
  EXPECT_FALSE(ParseIpcDatagram(datagram.substr(0, 39)).ok());
  EXPECT_FALSE(ParseIpcDatagram(datagram.substr(0, 50)).ok());  // size field says 20
  std::string no_nul = datagram;
  for (size_t i = 8; i < 40; ++i) no_nul[i] = 'a';
  EXPECT_FALSE(ParseIpcDatagram(no_nul).ok());
  KinetoRequest request;
  request.pids = {5, 6};
  std::string payload = EncodeKinetoRequest(request);
  EXPECT_FALSE(ParseKinetoRequest(payload.substr(0, payload.size() - 1)).ok());
  request.pids = {0};
  EXPECT_FALSE(ParseKinetoRequest(EncodeKinetoRequest(request)).ok());
  request.pids.clear();
  EXPECT_FALSE(ParseKinetoRequest(EncodeKinetoRequest(request)).ok());
}

TEST(IpcProtocol, AbstractAddressesKeepTheTrailingZero) {
  auto address = MakeIpcAddress("dynolog", "");
  ASSERT_TRUE(address.ok());
  EXPECT_EQ(address->length, 2u + 7u + 2u);  // Kineto's addrlen 11
  EXPECT_EQ(address->address.sun_path[0], '\0');
  EXPECT_EQ(std::string(address->address.sun_path + 1, 7), "dynolog");
  EXPECT_EQ(address->address.sun_path[8], '\0');
  EXPECT_EQ(IpcNameOf(address->address, address->length, ""), "dynolog");
  EXPECT_FALSE(MakeIpcAddress("", "").ok());
  EXPECT_FALSE(MakeIpcAddress(std::string(107, 'a'), "").ok());
}

TEST(OnDemandConfig, BuildsDynosTextInDurationAndIterationModes) {
  CaptureRequest request;
  request.log_file = "/tmp/x/trace.json";
  request.start_time_ms = 1700000000000;
  request.duration_ms = 250;
  const std::string duration = BuildOnDemandConfig(request);
  EXPECT_EQ(
      duration.find("ACTIVITIES_LOG_FILE=/tmp/x/trace.json\nPROFILE_START_TIME=1700000000000\n"
                    "ACTIVITIES_DURATION_MSECS=250\n"),
      0u);
  request.iterations = 3;
  const std::string iterations = BuildOnDemandConfig(request);
  EXPECT_NE(iterations.find("PROFILE_START_ITERATION=0\nPROFILE_START_ITERATION_ROUNDUP=1\n"
                            "ACTIVITIES_ITERATIONS=3\n"),
            std::string::npos);
  EXPECT_TRUE(ParseOnDemandConfig(duration).ok());
  EXPECT_TRUE(ParseOnDemandConfig(iterations).ok());
}

TEST(OnDemandConfig, ConfinesTheLogFileToTheCaptureFolder) {
  std::string log_file;
  auto confined = ConfineOnDemandConfig(
      "ACTIVITIES_LOG_FILE=/etc/cron.d/evil.json\nACTIVITIES_DURATION_MSECS=500", "/tmp/cap/dyno",
      log_file);
  ASSERT_TRUE(confined.ok()) << confined.error().message;
  EXPECT_EQ(log_file, "/tmp/cap/dyno/evil.json");
  EXPECT_EQ(confined->find("ACTIVITIES_LOG_FILE=/tmp/cap/dyno/evil.json"), 0u);
  EXPECT_EQ(confined->find("/etc"), std::string::npos);
  // Only the file name is kept, so ".." cannot climb out.
  ASSERT_TRUE(ConfineOnDemandConfig("ACTIVITIES_LOG_FILE=/tmp/../x", "/tmp/c", log_file).ok());
  EXPECT_EQ(log_file, "/tmp/c/x");
  EXPECT_FALSE(ConfineOnDemandConfig("ACTIVITIES_LOG_FILE=/tmp/..", "/tmp/c", log_file).ok());
  EXPECT_FALSE(ConfineOnDemandConfig("UNKNOWN_KEY=1", "/tmp/c", log_file).ok());
  EXPECT_FALSE(ConfineOnDemandConfig("ACTIVITIES_DURATION_MSECS=-1", "/tmp/c", log_file).ok());
  EXPECT_FALSE(ConfineOnDemandConfig("A=B=C", "/tmp/c", log_file).ok());
}

TEST(OnDemandConfig, KinetoInsertsThePidBeforeTheSuffix) {
  EXPECT_EQ(KinetoOutputPath("/d/trace.json", 7), "/d/trace_7.json");
  EXPECT_EQ(KinetoOutputPath("/d/t.pt.trace.json", 7), "/d/t_7.pt.trace.json");
  EXPECT_EQ(KinetoOutputPath("/d/trace", 7), "/d/trace");
}

}  // namespace
}  // namespace xpuperf::agent

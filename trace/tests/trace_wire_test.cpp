// EncodeTrace/DecodeTrace: lossless on every shared trace and on .xplane.pb-like and HTA-read
// traces (the run analyses to the same JSON), and an error, never a crash, on any damaged message.
#include "xpuperf/trace/trace_wire.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "trace_test_util.h"
#include "xpuperf/trace/hta_convention.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

std::string AnalysedJson(const TraceRun& run) { return ToJson(AnalyzeRun(run)).dump(); }

// Encodes every rank, decodes it, and checks that the copy encodes to the same bytes and
// analyses to the same report.
void ExpectLossless(TraceRun run) {
  TraceRun copy;
  for (const Trace& trace : run.ranks) {
    const std::string bytes = EncodeTrace(trace);
    auto decoded = DecodeTrace(bytes);
    ASSERT_TRUE(decoded.ok()) << trace.source << ": " << decoded.error().message;
    EXPECT_EQ(EncodeTrace(*decoded), bytes) << trace.source;
    copy.ranks.push_back(std::move(decoded).value());
  }
  EXPECT_EQ(AnalysedJson(copy), AnalysedJson(run));
}

TEST(TraceWireTest, EverySharedTraceRoundTrips) {
  XPUPERF_REQUIRE_TRACE(testing::TraceDir());
  int traces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::TraceDir())) {
    const std::string path = entry.path().string();
    if (path.find("memory_timeline") != std::string::npos || path.ends_with(".md")) continue;
    auto read = ReadTraceRun(path);
    ASSERT_TRUE(read.ok()) << path << ": " << read.error().message;
    ExpectLossless(std::move(read).value());
    ++traces;
  }
  EXPECT_GE(traces, 10);
}

TEST(TraceWireTest, HtaConventionAndTwoRanksRoundTrip) {
  const std::string a = testing::SharedTrace("trace_filter__sampled_rank-0.json.gz");
  const std::string b = testing::SharedTrace("trace_filter__sampled_rank-1.json.gz");
  XPUPERF_REQUIRE_TRACE(a);
  TraceRun run;
  for (const std::string& path : {a, b}) {
    auto one = ReadTraceRun(path);
    ASSERT_TRUE(one.ok());
    run.ranks.push_back(std::move(one->ranks[0]));
  }
  run.ranks[1].rank = 1;
  ApplyHtaConvention(run);
  ExpectLossless(std::move(run));
}

// A repeated pid/tid key: the last one wins, its kind (string or number) with its value, so
// the parsed trace always encodes to a message that decodes (found by the trace fuzzer).
TEST(TraceWireTest, RepeatedPidKeyTakesTheLastKind) {
  Trace t = testing::ParseOrDie(testing::KinetoJson(
      R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": "Spans", "pid": 1, "tid": 1, "ts": 1,
          "dur": 2},
         {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": "t", "tid": 2, "ts": 2,
          "dur": 1})",
      ""));
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].pid, 1);
  EXPECT_EQ(t.events[0].hta_flags & kHtaStringPid, 0);
  EXPECT_EQ(t.events[1].tid, 2);
  EXPECT_EQ(t.events[1].hta_flags & kHtaStringTid, 0);
  auto decoded = DecodeTrace(EncodeTrace(t));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
}

TEST(TraceWireTest, SyntheticFieldsSurvive) {
  Trace t = testing::ParseOrDie(testing::KinetoJson(
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": "Spans", "tid": 7, "ts": 1.5,
          "dur": 2, "args": {"External id": 3, "Input Dims": [[2, 3], [3, 4]],
          "Input type": ["float", "float"]}},
         {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 2, "dur": 1,
          "args": {"correlation": 9, "External id": 3, "stream": 7, "device": 0}})",
      R"("deviceProperties": [{"id": 0, "name": "H100", "totalGlobalMem": 85000000000}],
         "distributedInfo": {"rank": 3, "backend": "nccl", "world_size": 8})"));
  t.xla_ops[t.strings.Intern("fusion.1")] = XlaOpInfo{t.strings.Intern("loop fusion"), 0, 7, 9};
  t.track_names.push_back({1, TrackName::kProcessTrack, t.strings.Intern("/device:TPU:0")});
  t.memory.push_back({5, 64, 128, 256, 1, 0, 1, 2});
  t.memory_bandwidth_gbps.push_back({4, 12.5});
  t.event_waits.push_back({6, 20, 1533});
  auto decoded = DecodeTrace(EncodeTrace(t));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->rank, 3);
  EXPECT_EQ(decoded->backend, "nccl");
  EXPECT_EQ(decoded->devices.size(), 1u);
  EXPECT_EQ(decoded->events.size(), t.events.size());
  EXPECT_EQ(decoded->InputDims(decoded->events[0]), t.InputDims(t.events[0]));
  EXPECT_EQ(decoded->xla_ops.at(decoded->strings.Find("fusion.1")).flops, 7);
  EXPECT_EQ(decoded->strings.Get(decoded->track_names[0].name), "/device:TPU:0");
  EXPECT_EQ(decoded->event_waits, t.event_waits);
  EXPECT_EQ(EncodeTrace(*decoded), EncodeTrace(t));
}

TEST(TraceWireTest, DamagedMessagesAreErrors) {
  Trace t = testing::ParseOrDie(testing::KinetoJson(
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1})"));
  const std::string bytes = EncodeTrace(t);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeTrace(std::string_view(bytes).substr(0, cut)).ok()) << cut;
  }
  EXPECT_FALSE(DecodeTrace(bytes + "x").ok());
  // Every single-byte change decodes to an error or to a trace whose ids are all in range (the
  // check runs inside DecodeTrace); none may crash.
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0xff);
    (void)DecodeTrace(damaged);
  }
  EXPECT_FALSE(DecodeTrace("").ok());
  EXPECT_EQ(DecodeTrace("garbage").error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace xpuperf::trace

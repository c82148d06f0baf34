// Host-side arithmetic of the GPU benchmarks, with expected values worked out by hand.
#include "xpuperf/cuda_bench/formulas.h"

#include <gtest/gtest.h>

#include <map>

namespace xpuperf::cuda_bench {
namespace {

using nlohmann::json;
constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(GpuFormulasTest, PeakFmaCountsTwoFlopPerLane) {
  // 2 x 1 lane x 8 chains x 1000 iterations x 256 threads.
  EXPECT_DOUBLE_EQ(PeakFmaFlops(GpuPrecision::kFp32, 1000, 256), 4'096'000.0);
  EXPECT_DOUBLE_EQ(PeakFmaFlops(GpuPrecision::kFp64, 1000, 256), 4'096'000.0);
  // Packed pairs: twice as many lanes.
  EXPECT_DOUBLE_EQ(PeakFmaFlops(GpuPrecision::kBf16, 1000, 256), 8'192'000.0);
  EXPECT_DOUBLE_EQ(PeakFmaFlops(GpuPrecision::kFp16, 1, 1), 32.0);
  EXPECT_DOUBLE_EQ(FmaFixedPoint(0.9921875, 0.0078125), 1.0);
}

TEST(GpuFormulasTest, GemmBytesCountInputsOnceAndTheOutputOnce) {
  const bench::GemmShape shape{128, 256, 64};
  // (128 x 64 + 64 x 256) x 2 + 128 x 256 x 2 = 49152 + 65536.
  EXPECT_DOUBLE_EQ(GpuGemmBytes(shape, GpuPrecision::kBf16), 114688.0);
  // fp8 inputs are 1 byte, the output bf16: 24576 + 65536.
  EXPECT_DOUBLE_EQ(GpuGemmBytes(shape, GpuPrecision::kFp8), 90112.0);
  // tf32 is stored as fp32: 24576 x 4 + 32768 x 4.
  EXPECT_DOUBLE_EQ(GpuGemmBytes(shape, GpuPrecision::kTf32), 229376.0);
  EXPECT_DOUBLE_EQ(GpuGemmBytes(shape, GpuPrecision::kFp64), 458752.0);
}

TEST(GpuFormulasTest, GemmPointsAreParsedAndChecked) {
  auto parsed = ParseGpuGemmPoint(json::object());
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->precision, GpuPrecision::kBf16);
  EXPECT_EQ(parsed->shape.m, 4096);
  parsed = ParseGpuGemmPoint({{"precision", "fp8"}, {"m", 256}, {"n", 4096}, {"k", 4096}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->precision, GpuPrecision::kFp8);
  EXPECT_EQ(parsed->shape.m, 256);
  for (const json& bad :
       {json{{"precision", "fp4"}}, json{{"m", 0}}, json{{"k", -3}}, json{{"n", "big"}},
        json{{"precision", "fp8"}, {"m", 100}}, json{{"m", 65536}, {"k", 65536}}}) {
    const auto result = ParseGpuGemmPoint(bad);
    ASSERT_FALSE(result.ok()) << bad.dump();
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument) << bad.dump();
  }
  EXPECT_EQ(MinComputeCapability(GpuPrecision::kFp8, true), 89);
  EXPECT_EQ(MinComputeCapability(GpuPrecision::kBf16, true), 80);
  EXPECT_EQ(MinComputeCapability(GpuPrecision::kFp64, true), 0);
}

TEST(GpuFormulasTest, RotationSpansTwiceTheL2WithinLimits) {
  // One 384 MiB set already dwarfs a 60 MiB L2.
  EXPECT_EQ(RotationSets(384 * kMiB, 60 * kMiB, 100 * 1024 * kMiB), 1);
  // 6 MiB sets: 100 MiB / 6 MiB = 17 wanted, capped at 8.
  EXPECT_EQ(RotationSets(6 * kMiB, 50 * kMiB, 100 * 1024 * kMiB), 8);
  // 30 MiB sets and a 40 MiB L2: 80 / 30 -> 3.
  EXPECT_EQ(RotationSets(30 * kMiB, 40 * kMiB, 100 * 1024 * kMiB), 3);
  // Only one set fits in half of 30 MiB free.
  EXPECT_EQ(RotationSets(10 * kMiB, 50 * kMiB, 30 * kMiB), 1);
  EXPECT_EQ(RotationSets(0, 50 * kMiB, 30 * kMiB), 1);
}

TEST(GpuFormulasTest, StreamArraysAreMuchLargerThanTheL2) {
  const uint64_t memory = uint64_t{141} << 30;
  EXPECT_EQ(*GpuStreamArrayBytes(0, 60 * kMiB, memory), 480 * kMiB);
  EXPECT_EQ(*GpuStreamArrayBytes(0, 4 * kMiB, memory), 256 * kMiB);
  EXPECT_EQ(*GpuStreamArrayBytes(100, 60 * kMiB, memory), 100 * kMiB);
  // Three 1 GiB arrays in 4 GiB: more than half.
  const auto too_big = GpuStreamArrayBytes(1024, 60 * kMiB, uint64_t{4} << 30);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code, ErrorCode::kInvalidArgument);
}

TEST(GpuFormulasTest, L2SweepSizesGrowByOctaveSteps) {
  const auto one_per_octave =
      L2SweepSizes({{"min_kib", 4}, {"max_kib", 16}, {"steps_per_octave", 1}}, 50 * kMiB);
  ASSERT_TRUE(one_per_octave.ok());
  EXPECT_EQ(*one_per_octave, (std::vector<uint64_t>{4096, 8192, 16384}));
  // Defaults: 256 KiB to 4 x 50 MiB = 204800 KiB, two steps per octave: 256 x 2^(i/2) for
  // i = 0..19 (2^9.5 = 724.08 <= 800 < 2^10), each rounded down to 4 KiB.
  const auto sizes = L2SweepSizes(json::object(), 50 * kMiB);
  ASSERT_TRUE(sizes.ok());
  ASSERT_EQ(sizes->size(), 20u);
  EXPECT_EQ(sizes->front(), 256u * 1024);
  EXPECT_EQ((*sizes)[1], 360u * 1024);       // 362.04 KiB
  EXPECT_EQ(sizes->back(), 185360u * 1024);  // 185363.8 KiB
  for (const json& bad : {json{{"min_kib", 64}, {"max_kib", 32}}, json{{"min_kib", 2}},
                          json{{"steps_per_octave", 0}}}) {
    EXPECT_FALSE(L2SweepSizes(bad, 50 * kMiB).ok()) << bad.dump();
  }
}

TEST(GpuFormulasTest, CollectiveCountsFollowTheSizeColumn) {
  // all_gather: 1 MiB is the total output of 4 ranks: 65536 floats each.
  EXPECT_EQ(CollectiveCount(Collective::kAllGather, kMiB, 4), 65536u);
  EXPECT_EQ(CollectiveCount(Collective::kAllReduce, kMiB, 4), 262144u);
  EXPECT_EQ(CollectiveCount(Collective::kAllToAll, kMiB, 4), 65536u);
  EXPECT_EQ(CollectiveCount(Collective::kReduceScatter, 8, 4), 0u);
  EXPECT_DOUBLE_EQ(CollectiveBytes(Collective::kAllGather, 65536, 4), double(kMiB));
  EXPECT_DOUBLE_EQ(CollectiveBytes(Collective::kBroadcast, 65536, 4), 262144.0);
  EXPECT_EQ(SendElements(Collective::kReduceScatter, 10, 3), 30u);
  EXPECT_EQ(RecvElements(Collective::kReduceScatter, 10, 3), 10u);
  EXPECT_EQ(SendElements(Collective::kAllGather, 10, 3), 10u);
  EXPECT_EQ(RecvElements(Collective::kAllGather, 10, 3), 30u);
  EXPECT_EQ(SendElements(Collective::kAllToAll, 10, 3), 30u);
  EXPECT_EQ(RecvElements(Collective::kAllToAll, 10, 3), 30u);
}

// Values of a buffer described by segments.
std::vector<float> Materialise(const std::vector<PatternSegment>& segments, uint64_t size) {
  std::vector<float> values(size, -1.0f);
  for (const PatternSegment& s : segments) {
    for (uint64_t i = 0; i < s.count; ++i) values.at(s.start + i) = PatternValue(s, i);
  }
  return values;
}

// The collectives' semantics applied on the host to what SendPattern says each rank sends, for
// comparison with ExpectedRecvPattern.
std::vector<float> Simulate(Collective c, int rank, int n, uint64_t count) {
  std::vector<std::vector<float>> send;
  for (int q = 0; q < n; ++q) {
    send.push_back(Materialise(SendPattern(c, q, n, count), SendElements(c, count, n)));
  }
  std::vector<float> out(RecvElements(c, count, n), 0.0f);
  const auto r = static_cast<uint64_t>(rank);
  for (uint64_t i = 0; i < out.size(); ++i) {
    switch (c) {
      case Collective::kAllReduce:
        for (int q = 0; q < n; ++q) out[i] += send[q][i];
        break;
      case Collective::kReduceScatter:
        for (int q = 0; q < n; ++q) out[i] += send[q][r * count + i];
        break;
      case Collective::kAllGather:
        out[i] = send[i / count][i % count];
        break;
      case Collective::kAllToAll:
        out[i] = send[i / count][r * count + i % count];
        break;
      case Collective::kBroadcast:
        out[i] = send[0][i];
        break;
      case Collective::kSendRecv:
        out[i] = send[(rank + n - 1) % n][i];
        break;
    }
  }
  return out;
}

TEST(GpuFormulasTest, ExpectedPatternsMatchTheCollectivesOnTheHost) {
  for (const Collective c :
       {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
        Collective::kAllToAll, Collective::kBroadcast, Collective::kSendRecv}) {
    for (int n : {1, 3}) {
      constexpr uint64_t kCount = 130;  // more than one period of 97
      for (int rank = 0; rank < n; ++rank) {
        const std::vector<float> expected =
            Materialise(ExpectedRecvPattern(c, rank, n, kCount), RecvElements(c, kCount, n));
        EXPECT_EQ(expected, Simulate(c, rank, n, kCount))
            << CollectiveName(c) << " rank " << rank << " of " << n;
      }
    }
  }
  // Spot values: rank 1 sends 2 + 8 x ((i mod 97) + 1).
  const PatternSegment s = SendPattern(Collective::kAllReduce, 1, 3, 100).front();
  EXPECT_FLOAT_EQ(PatternValue(s, 0), 10.0f);
  EXPECT_FLOAT_EQ(PatternValue(s, 96), 778.0f);
  EXPECT_FLOAT_EQ(PatternValue(s, 97), 10.0f);
}

TEST(GpuFormulasTest, AttentionPointsAndFlops) {
  AttentionPoint p;
  p.batch = 1;
  p.heads = 16;
  p.seq = 4096;
  p.head_dim = 128;
  // 4 x 4096^2 x 16 x 128 x 1.
  EXPECT_DOUBLE_EQ(AttentionFlops(p), 137438953472.0);
  p.causal = true;
  EXPECT_DOUBLE_EQ(AttentionFlops(p), 68719476736.0);
  // Q, K, V, O: 4 x 16 x 4096 x 128 x 2 bytes.
  EXPECT_DOUBLE_EQ(AttentionBytes(p), 67108864.0);
  const auto parsed = ParseAttentionPoint({{"seq_len", 1024}, {"head_dim", 64}, {"causal", true}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->seq, 1024);
  EXPECT_EQ(parsed->head_dim, 64);
  EXPECT_TRUE(parsed->causal);
  EXPECT_EQ(parsed->heads, 16);
  for (const json& bad : {json{{"head_dim", 96}}, json{{"seq_len", 100}}, json{{"causal", "yes"}},
                          json{{"batch", 0}}, json::array()}) {
    EXPECT_FALSE(ParseAttentionPoint(bad).ok()) << bad.dump();
  }
}

TEST(GpuFormulasTest, ParametersOfTheWrongTypeAreErrorsNotExceptions) {
  EXPECT_EQ(*TextParameter({{"kernel", "copy"}}, "kernel", "triad"), "copy");
  EXPECT_EQ(*TextParameter(json::object(), "kernel", "triad"), "triad");
  EXPECT_EQ(TextParameter({{"kernel", 3}}, "kernel", "triad").error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_FALSE(TextParameter(json::array(), "kernel", "triad").ok());
  EXPECT_EQ(*CountParameter({{"array_mib", 64}}, "array_mib", 0), 64u);
  EXPECT_EQ(*CountParameter(json::object(), "array_mib", 7), 7u);
  EXPECT_FALSE(CountParameter({{"array_mib", -1}}, "array_mib", 0).ok());
  EXPECT_FALSE(CountParameter({{"array_mib", "64"}}, "array_mib", 0).ok());
  EXPECT_FALSE(ParseGpuGemmPoint({{"precision", 16}}).ok());
  EXPECT_FALSE(ParseGpuGemmPoint(json::array()).ok());
}

TEST(GpuFormulasTest, PrecisionNamesRoundTrip) {
  for (const char* name : {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"}) {
    const auto parsed = ParseGpuPrecision(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(GpuPrecisionName(*parsed), name);
  }
  EXPECT_EQ(InputElementBytes(GpuPrecision::kTf32), 4);
  EXPECT_EQ(OutputElementBytes(GpuPrecision::kFp8), 2);
  EXPECT_FALSE(ParseGpuPrecision("int8").ok());
}

}  // namespace
}  // namespace xpuperf::cuda_bench

// bf16 attention: the kernel (vdpbf16ps emulated by its scalar model, so it runs on every CPU; the
// AVX512_BF16 build where CPUID has it) against the double-precision reference, the tolerance
// catching wrong outputs, and the benchmark's bf16 point (run or "unsupported: CPU lacks ...").
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attention.h"
#include "peak_models.h"
#include "xpuperf/bench/queue.h"

namespace xpuperf::bench {
namespace {

struct Bf16Tensors {
  std::vector<uint16_t> q, k, v;
};

Bf16Tensors RandomTensors(const AttentionShape& shape, unsigned seed, float range = 1.0f) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-range, range);
  Bf16Tensors t;
  for (std::vector<uint16_t>* tensor : {&t.q, &t.k, &t.v}) {
    tensor->resize(static_cast<size_t>(shape.elements()));
    for (uint16_t& x : *tensor) x = Bf16FromFloat(uniform(random));
  }
  return t;
}

std::vector<float> RunKernel(const AttentionShape& shape, const Bf16Tensors& t,
                             Bf16AttentionKernel kernel, int threads = 2) {
  std::vector<float> o(static_cast<size_t>(shape.elements()),
                       std::numeric_limits<float>::quiet_NaN());
  FlashAttentionBf16Forward(shape, t.q.data(), t.k.data(), t.v.data(), o.data(), threads, kernel);
  return o;
}

bool HostHasBf16() { return Bf16AttentionSupport(UsableHostFeatures()).ok(); }

// Shapes covering one element, odd head_dim (a half-filled pair), head_dim not a multiple of 16
// (padded columns), sequences that end inside a query, key and pair block, several heads and
// batches, head_dim above 64 (two column tiles) and the largest head_dim.
const std::vector<AttentionShape> kShapes = {
    {1, 1, 1, 1, false},    {1, 2, 5, 3, false},    {1, 2, 5, 3, true},
    {2, 3, 67, 16, false},  {2, 3, 67, 16, true},   {1, 1, 129, 33, true},
    {1, 2, 130, 80, false}, {1, 1, 200, 128, true}, {1, 1, 65, 256, false}};

TEST(FlashAttentionBf16Test, EmulatedKernelMatchesTheDoubleReference) {
  for (const AttentionShape& shape : kShapes) {
    const Bf16Tensors t = RandomTensors(shape, 7);
    const std::vector<float> o = RunKernel(shape, t, Bf16AttentionKernel::kEmulated);
    const Status status =
        VerifyAttentionBf16(shape, t.q.data(), t.k.data(), t.v.data(), o.data(), shape.seq_len);
    EXPECT_TRUE(status.ok()) << "s=" << shape.seq_len << " d=" << shape.head_dim
                             << " causal=" << shape.causal << ": " << status.error().message;
  }
}

TEST(FlashAttentionBf16Test, EmulatedKernelHandlesLargeScores) {
  // Inputs up to 8: scores up to 64 d / sqrt(d), so e^x would overflow without the running
  // maximum, and rows where one key dominates.
  const AttentionShape shape{1, 1, 150, 64, true};
  const Bf16Tensors t = RandomTensors(shape, 11, 8.0f);
  const std::vector<float> o = RunKernel(shape, t, Bf16AttentionKernel::kEmulated, 1);
  const Status status =
      VerifyAttentionBf16(shape, t.q.data(), t.k.data(), t.v.data(), o.data(), shape.seq_len);
  EXPECT_TRUE(status.ok()) << status.error().message;
}

TEST(FlashAttentionBf16Test, ThreadCountDoesNotChangeTheResult) {
  const AttentionShape shape{1, 3, 100, 24, true};
  const Bf16Tensors t = RandomTensors(shape, 5);
  EXPECT_EQ(RunKernel(shape, t, Bf16AttentionKernel::kEmulated, 1),
            RunKernel(shape, t, Bf16AttentionKernel::kEmulated, 2));
}

TEST(FlashAttentionBf16Test, NativeKernelMatchesTheDoubleReference) {
  if (!HostHasBf16()) {
    GTEST_SKIP() << Bf16AttentionSupport(UsableHostFeatures()).error().message;
  }
  for (const AttentionShape& shape : kShapes) {
    const Bf16Tensors t = RandomTensors(shape, 7);
    const std::vector<float> o = RunKernel(shape, t, Bf16AttentionKernel::kAvx512Bf16);
    const Status status =
        VerifyAttentionBf16(shape, t.q.data(), t.k.data(), t.v.data(), o.data(), shape.seq_len);
    EXPECT_TRUE(status.ok()) << "s=" << shape.seq_len << " d=" << shape.head_dim
                             << " causal=" << shape.causal << ": " << status.error().message;
  }
}

TEST(FlashAttentionBf16Test, VerificationCatchesWrongOutputs) {
  const AttentionShape shape{1, 2, 130, 32, true};
  const Bf16Tensors t = RandomTensors(shape, 3);
  const std::vector<float> good = RunKernel(shape, t, Bf16AttentionKernel::kEmulated);
  ASSERT_TRUE(VerifyAttentionBf16(shape, t.q.data(), t.k.data(), t.v.data(), good.data(), 8).ok());
  // An element moved by 3 x its tolerance (bounded above by 2^-8 + small terms of max|v| <= 1):
  // row 129 (the last, among the 8 verified rows) of head 1.
  std::vector<float> bad = good;
  const size_t element = static_cast<size_t>((130 + 129) * 32 + 5);
  bad[element] += 3 * 0x1p-8f * 1.01f + 1e-3f;
  const Status status =
      VerifyAttentionBf16(shape, t.q.data(), t.k.data(), t.v.data(), bad.data(), 8);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("[head 1][row 129][5]"), std::string::npos)
      << status.error().message;
  // The outputs of a non-causal run checked as causal: a wrong mask is far outside the bound.
  AttentionShape full = shape;
  full.causal = false;
  const std::vector<float> unmasked = RunKernel(full, t, Bf16AttentionKernel::kEmulated);
  EXPECT_FALSE(
      VerifyAttentionBf16(shape, t.q.data(), t.k.data(), t.v.data(), unmasked.data(), 8).ok());
}

TEST(FlashAttentionBf16Test, ToleranceIsTheStatedBound) {
  const AttentionShape shape{1, 1, 512, 64, false};
  // 2^-8 + 2 x 512 x 2^-24 + 2 x 64 x 2^-24 x 10 / 8 + 1e-6 x 9, times weighted |v| = 0.5.
  const double expected = 0.5 * (0x1p-8 + 1024 * 0x1p-24 + 160 * 0x1p-24 + 9e-6);
  EXPECT_NEAR(Bf16AttentionTolerance(shape, 0.5, 10), expected, 1e-15);
}

TEST(Bf16AttentionSupportTest, NamesWhatTheCpuLacks) {
  IsaFeatures none;
  const Status missing = Bf16AttentionSupport(none);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(missing.error().message,
            "unsupported: CPU lacks avx512f and avx512_bf16 (no bf16 attention kernel runs here)");
  IsaFeatures avx512;
  avx512.Set(IsaExtension::kAvx512f);
  EXPECT_EQ(Bf16AttentionSupport(avx512).error().message,
            "unsupported: CPU lacks avx512_bf16 (no bf16 attention kernel runs here)");
  avx512.Set(IsaExtension::kAvx512Bf16);
  EXPECT_TRUE(Bf16AttentionSupport(avx512).ok());
}

Measurement Gemm(std::string precision, double value, int64_t m) {
  Measurement g;
  g.benchmark = "gemm";
  g.metric = precision + "_flops";
  g.value = value;
  g.parameters = {{"m", m}, {"n", 64}, {"k", 64}};
  return g;
}

TEST(BestGemmRateTest, PicksTheBestOfTheMetric) {
  const std::vector<Measurement> earlier = {Gemm("fp32", 50, 1), Gemm("bf16", 300, 2),
                                            Gemm("bf16", 200, 3), Gemm("fp32", 80, 4)};
  EXPECT_EQ(BestGemmRate(earlier, "bf16_flops")->second->parameters["m"], 2);
  EXPECT_EQ(BestGemmRate(earlier, "fp32_flops")->second->parameters["m"], 4);
  EXPECT_FALSE(BestGemmRate(earlier, "int8_ops"));
}

TEST(AttentionBf16BenchmarkTest, RunsWhereTheCpuHasBf16AndSaysWhyNotElsewhere) {
  const std::unique_ptr<Benchmark> attention = MakeAttentionBenchmark();
  Device device;
  device.backend = "cpu";
  HostQueue queue;
  RunContext context;
  context.device = &device;
  context.queue = &queue;
  context.threads = 2;
  context.sampling = {0, 2, 0.001, int64_t{1} << 30};
  const nlohmann::json point = {{"batch", 1},     {"heads", 2},     {"seq_len", 96},
                                {"head_dim", 32}, {"causal", true}, {"precision", "bf16"}};
  const Status can_run = attention->CanRun(device, point);
  if (!HostHasBf16()) {
    ASSERT_FALSE(can_run.ok());
    EXPECT_EQ(can_run.error().code, ErrorCode::kUnsupported);
    EXPECT_NE(can_run.error().message.find("unsupported: CPU lacks avx512"), std::string::npos)
        << can_run.error().message;
    return;
  }
  ASSERT_TRUE(can_run.ok()) << can_run.error().message;
  const std::vector<Measurement> earlier = {Gemm("fp32", 50, 1), Gemm("bf16", 400, 3)};
  context.earlier = &earlier;
  auto result = attention->Run(point, context);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), 2u);
  const Measurement& m = result->front();
  EXPECT_EQ(m.metric, "bf16_flops");
  EXPECT_GT(m.value, 0);
  EXPECT_DOUBLE_EQ(m.bytes_per_repetition, 10.0 * 2 * 96 * 32);
  EXPECT_DOUBLE_EQ(m.parameters["bf16_gemm_gflops"].get<double>(), 400);
  EXPECT_EQ((*result)[1].metric, "bf16_percent_of_gemm");
  EXPECT_DOUBLE_EQ((*result)[1].value, 100 * m.value / 400);
}

TEST(AttentionBf16BenchmarkTest, BadPrecisionIsAUsageError) {
  const std::unique_ptr<Benchmark> attention = MakeAttentionBenchmark();
  Device device;
  device.backend = "cpu";
  const Status status = attention->CanRun(device, {{"precision", "int8"}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace xpuperf::bench

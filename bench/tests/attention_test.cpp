// attention: the FLOP formula, the flash kernel against an independent naive implementation, the
// verification catching wrong outputs and a small run through the benchmark.
#include "attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "xpuperf/bench/queue.h"

namespace xpuperf::bench {
namespace {

TEST(AttentionFlopsTest, KnownAnswers) {
  // 4 s^2 h d b and (4 s^2 - 2 s^2) h d b, worked out by hand.
  EXPECT_DOUBLE_EQ(AttentionFlops({2, 3, 5, 7, false}), 4200.0);  // 4 x 25 x 3 x 7 x 2
  EXPECT_DOUBLE_EQ(AttentionFlops({2, 3, 5, 7, true}), 2100.0);   // (100 - 50) x 3 x 7 x 2
  EXPECT_DOUBLE_EQ(AttentionFlops({1, 8, 1024, 64, false}), 2147483648.0);  // 2^31
  EXPECT_DOUBLE_EQ(AttentionFlops({1, 8, 1024, 64, true}), 1073741824.0);   // 2^30
  EXPECT_NE(AttentionFlopsFormula({2, 3, 5, 7, true}).find("(4 s_q s_kv - 2 s_q^2)"),
            std::string::npos);
}

TEST(AttentionShapeTest, RejectsBadShapes) {
  EXPECT_TRUE(CheckAttentionShape({1, 1, 1, 1, false}).ok());
  EXPECT_FALSE(CheckAttentionShape({0, 1, 1, 1, false}).ok());
  EXPECT_FALSE(CheckAttentionShape({1, 1, 1, 0, false}).ok());
  EXPECT_FALSE(CheckAttentionShape({1, 1, 1, 257, false}).ok());
  EXPECT_FALSE(CheckAttentionShape({1 << 20, 1 << 20, 1 << 20, 64, false}).ok());
}

// softmax(Q K^T / sqrt(d)) V with the whole score matrix of one head, in double.
std::vector<double> Reference(const AttentionShape& shape, const std::vector<float>& q,
                              const std::vector<float>& k, const std::vector<float>& v) {
  const int64_t s = shape.seq_len, d = shape.head_dim;
  std::vector<double> out(q.size());
  for (int64_t head = 0; head < shape.batch * shape.heads; ++head) {
    const int64_t base = head * s * d;
    std::vector<double> scores(static_cast<size_t>(s * s));
    for (int64_t i = 0; i < s; ++i) {
      for (int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (int64_t x = 0; x < d; ++x) dot += double{q[base + i * d + x]} * k[base + j * d + x];
        scores[i * s + j] = dot / std::sqrt(static_cast<double>(d));
      }
    }
    for (int64_t i = 0; i < s; ++i) {
      const int64_t visible = shape.causal ? i + 1 : s;
      double max = scores[i * s];
      for (int64_t j = 1; j < visible; ++j) max = std::max(max, scores[i * s + j]);
      double sum = 0;
      for (int64_t j = 0; j < visible; ++j) {
        scores[i * s + j] = std::exp(scores[i * s + j] - max);
        sum += scores[i * s + j];
      }
      for (int64_t x = 0; x < d; ++x) {
        double o = 0;
        for (int64_t j = 0; j < visible; ++j) o += scores[i * s + j] / sum * v[base + j * d + x];
        out[base + i * d + x] = o;
      }
    }
  }
  return out;
}

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (float& x : values) x = uniform(random);
  return values;
}

bool HostHasAvx2Fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

TEST(FlashAttentionTest, MatchesNaiveReference) {
  const std::vector<AttentionShape> shapes = {
      {1, 1, 1, 1, false},    {1, 2, 5, 3, false},    {1, 2, 5, 3, true},     {2, 3, 67, 16, false},
      {2, 3, 67, 16, true},   {1, 2, 64, 64, true},   {1, 1, 130, 72, false}, {1, 1, 130, 72, true},
      {1, 2, 200, 128, true}, {1, 1, 129, 256, false}};
  for (const AttentionShape& shape : shapes) {
    const size_t n = static_cast<size_t>(shape.elements());
    const auto q = Random(n, 1), k = Random(n, 2), v = Random(n, 3);
    const std::vector<double> expected = Reference(shape, q, k, v);
    for (bool avx2 : {false, true}) {
      if (avx2 && !HostHasAvx2Fma()) continue;
      std::vector<float> o(n, -7.0f);
      FlashAttentionForward(shape, q.data(), k.data(), v.data(), o.data(), 2, avx2);
      double worst = 0;
      for (size_t i = 0; i < n; ++i) {
        // The tolerance of VerifyAttention (see there): 2e-5 max|v| + 1e-4 |ref|, max|v| <= 1.
        const double error = std::fabs(o[i] - expected[i]);
        worst = std::max(worst, error);
        ASSERT_LE(error, 2e-5 + 1e-4 * std::fabs(expected[i]))
            << "element " << i << " of shape b" << shape.batch << " h" << shape.heads << " s"
            << shape.seq_len << " d" << shape.head_dim << (shape.causal ? " causal" : "")
            << (avx2 ? " avx2" : " portable");
      }
      EXPECT_TRUE(
          VerifyAttention(shape, q.data(), k.data(), v.data(), o.data(), shape.seq_len).ok());
    }
  }
}

TEST(FlashAttentionTest, HandWorkedExample) {
  // head_dim 1 (scale 1): scores of both queries are (0, ln 3), so softmax = (1/4, 3/4) and
  // O = 4/4 + 3 x 8/4 = 7; causally, query 0 sees only key 0 (O = 4).
  const std::vector<float> q = {1, 1}, k = {0, static_cast<float>(std::log(3.0))}, v = {4, 8};
  std::vector<float> o(2);
  FlashAttentionForward({1, 1, 2, 1, false}, q.data(), k.data(), v.data(), o.data(), 1);
  EXPECT_NEAR(o[0], 7.0f, 1e-5);
  EXPECT_NEAR(o[1], 7.0f, 1e-5);
  FlashAttentionForward({1, 1, 2, 1, true}, q.data(), k.data(), v.data(), o.data(), 1);
  EXPECT_NEAR(o[0], 4.0f, 1e-5);
  EXPECT_NEAR(o[1], 7.0f, 1e-5);
}

TEST(FlashAttentionTest, VerificationCatchesWrongOutputs) {
  const AttentionShape shape{1, 2, 100, 32, true};
  const size_t n = static_cast<size_t>(shape.elements());
  const auto q = Random(n, 4), k = Random(n, 5), v = Random(n, 6);
  std::vector<float> o(n);
  FlashAttentionForward(shape, q.data(), k.data(), v.data(), o.data(), 2);
  ASSERT_TRUE(VerifyAttention(shape, q.data(), k.data(), v.data(), o.data(), 8).ok());
  // The last row of head 1 is among the sampled rows; 1e-3 is far above rounding.
  std::vector<float> wrong = o;
  wrong[n - 1] += 1e-3f;
  Status status = VerifyAttention(shape, q.data(), k.data(), v.data(), wrong.data(), 8);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kInternal);
  EXPECT_NE(status.error().message.find("[head 1][row 99][31]"), std::string::npos)
      << status.error().message;
  // A non-causal result is not a causal one.
  AttentionShape full = shape;
  full.causal = false;
  FlashAttentionForward(full, q.data(), k.data(), v.data(), o.data(), 2);
  EXPECT_FALSE(VerifyAttention(shape, q.data(), k.data(), v.data(), o.data(), 8).ok());
}

class AttentionBenchmarkTest : public ::testing::Test {
 protected:
  AttentionBenchmarkTest() : attention_(MakeAttentionBenchmark()) {
    device_.backend = "cpu";
    context_.device = &device_;
    context_.queue = &queue_;
    context_.threads = 2;
    context_.sampling = {0, 2, 0.001, int64_t{1} << 30};
  }
  Benchmark& attention() { return *attention_; }
  std::unique_ptr<Benchmark> attention_;
  Device device_;
  HostQueue queue_;
  RunContext context_;
};

Measurement Gemm(std::string precision, double value, int64_t m) {
  Measurement g;
  g.benchmark = "gemm";
  g.metric = precision + "_flops";
  g.value = value;
  g.parameters = {{"m", m}, {"n", 64}, {"k", 64}};
  return g;
}

TEST_F(AttentionBenchmarkTest, RunsAndRelatesToTheBestFp32Gemm) {
  const nlohmann::json point = {
      {"batch", 1}, {"heads", 2}, {"seq_len", 96}, {"head_dim", 32}, {"causal", true}};
  ASSERT_TRUE(attention().CanRun(device_, point).ok());
  const std::vector<Measurement> earlier = {Gemm("fp32", 50, 1), Gemm("fp64", 500, 2),
                                            Gemm("fp32", 80, 3)};
  context_.earlier = &earlier;
  auto result = attention().Run(point, context_);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const Measurement& m = result->front();
  EXPECT_EQ(m.metric, "fp32_flops");
  EXPECT_EQ(m.unit, "GFLOP/s");
  EXPECT_DOUBLE_EQ(m.flops_per_repetition, (4.0 * 96 * 96 - 2.0 * 96 * 96) * 2 * 32);
  EXPECT_GT(m.value, 0);
  EXPECT_DOUBLE_EQ(m.parameters["fp32_gemm_gflops"].get<double>(), 80);
  EXPECT_NEAR(m.parameters["fraction_of_fp32_gemm"].get<double>(), m.value / 80, 0.5e-4);
  ASSERT_EQ(result->size(), 2u);
  const Measurement& percent = (*result)[1];
  EXPECT_EQ(percent.metric, "fp32_percent_of_gemm");
  EXPECT_EQ(percent.unit, "%");
  EXPECT_DOUBLE_EQ(percent.value, 100 * m.value / 80);
  EXPECT_NE(percent.formula.find("m=3"), std::string::npos) << percent.formula;

  context_.earlier = nullptr;
  auto alone = attention().Run(point, context_);
  ASSERT_TRUE(alone.ok());
  ASSERT_EQ(alone->size(), 1u);
  EXPECT_TRUE(alone->front().parameters["fraction_of_fp32_gemm"].is_string());
}

TEST_F(AttentionBenchmarkTest, BadPointsAreUsageErrors) {
  for (const nlohmann::json& point :
       {nlohmann::json{{"head_dim", 0}}, nlohmann::json{{"causal", "yes"}},
        nlohmann::json{{"seq_len", 1.5}}, nlohmann::json{{"batch", -1}}}) {
    Status status = attention().CanRun(device_, point);
    ASSERT_FALSE(status.ok()) << point.dump();
    EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument) << point.dump();
  }
  Device gpu;
  gpu.backend = "nvidia";
  EXPECT_EQ(attention().CanRun(gpu, nlohmann::json::object()).error().code,
            ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace xpuperf::bench

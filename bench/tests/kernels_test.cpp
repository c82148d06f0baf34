// Every kernel verifies its output; a corrupted result must be caught.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/read_kernel.h"
#include "xpuperf/bench/stream.h"

namespace xpuperf::bench {
namespace {

bool HostHasAvx2Fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

std::vector<SimdLevel> Levels() {
  std::vector<SimdLevel> levels = {SimdLevel::kSse2};
  if (HostHasAvx2Fma()) levels.push_back(SimdLevel::kAvx2Fma);
  return levels;
}

TEST(KernelsTest, FmaChainsMatchClosedFormAndCorruptionIsCaught) {
  for (const SimdLevel level : Levels()) {
    for (const Precision precision : {Precision::kFp64, Precision::kFp32}) {
      const int64_t iterations = 1000;
      std::vector<double> out(static_cast<size_t>(FmaOutputCount(precision, level)));
      RunFmaChains(precision, level, iterations, 1.0, out);
      EXPECT_TRUE(VerifyFmaChains(precision, level, iterations, out).ok());
      EXPECT_FALSE(VerifyFmaChains(precision, level, iterations + 1, out).ok());
      out[5] = std::nextafter(out[5], 3.0);
      const Status corrupted = VerifyFmaChains(precision, level, iterations, out);
      ASSERT_FALSE(corrupted.ok());
      EXPECT_NE(corrupted.error().message.find("1 of"), std::string::npos)
          << corrupted.error().message;
    }
  }
}

TEST(KernelsTest, FmaChainsStayExactAtTheLimit) {
  const SimdLevel level = HostHasAvx2Fma() ? SimdLevel::kAvx2Fma : SimdLevel::kSse2;
  const int64_t iterations = MaxExactFmaIterations(Precision::kFp32);
  std::vector<double> out(static_cast<size_t>(FmaOutputCount(Precision::kFp32, level)));
  RunFmaChains(Precision::kFp32, level, iterations, 1.0, out);
  EXPECT_TRUE(VerifyFmaChains(Precision::kFp32, level, iterations, out).ok());
}

TEST(KernelsTest, StreamKernelsVerifyAndCatchCorruption) {
  const size_t n = 4099;  // not a multiple of any vector width
  std::vector<double> a(n), b(n), c(n);
  InitStreamArrays(a, b, c, 2);
  EXPECT_NE(a[0], 0.0);
  for (const StreamKernel kernel :
       {StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad}) {
    RunStreamKernel(kernel, a, b, c, 2);
    EXPECT_TRUE(VerifyStreamKernel(kernel, a, b, c).ok()) << StreamKernelName(kernel);
    c[n - 1] += 0.5;
    EXPECT_FALSE(VerifyStreamKernel(kernel, a, b, c).ok()) << StreamKernelName(kernel);
  }
}

template <typename T>
void CheckGemm() {
  const GemmShape shape{33, 47, 29};
  std::mt19937 random(7);
  std::uniform_real_distribution<T> uniform(T(-1), T(1));
  std::vector<T> a(33 * 29), b(29 * 47), c(33 * 47);
  for (T& x : a) x = uniform(random);
  for (T& x : b) x = uniform(random);
  RunGemm(shape, std::span<const T>(a), std::span<const T>(b), std::span<T>(c));
  EXPECT_TRUE(VerifyGemmSample<T>(shape, a, b, c, 33 * 47).ok());
  c[100] += T(0.01);
  const Status corrupted = VerifyGemmSample<T>(shape, a, b, c, 33 * 47);
  ASSERT_FALSE(corrupted.ok());
  EXPECT_NE(corrupted.error().message.find("C[2][6]"), std::string::npos)
      << corrupted.error().message;
}

TEST(KernelsTest, GemmVerifiesAgainstNaiveInnerProducts) {
  CheckGemm<double>();
  CheckGemm<float>();
}

TEST(KernelsTest, ReadSumIsExactForEveryLength) {
  std::vector<double> data(1000);
  FillReadPattern(data);
  for (const SimdLevel level : Levels()) {
    for (size_t n : {0, 1, 15, 16, 17, 33, 999, 1000}) {
      EXPECT_EQ(SumForBandwidth(level, std::span<const double>(data.data(), n)), ExpectedReadSum(n))
          << n;
    }
  }
}

}  // namespace
}  // namespace xpuperf::bench

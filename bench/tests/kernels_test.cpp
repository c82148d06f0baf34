// Every kernel verifies its output; a corrupted result must be caught.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "read_kernel.h"
#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/bench/stream.h"

namespace xpuperf::bench {
namespace {

bool HostHasAvx2Fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

std::vector<SimdLevel> Levels() {
  std::vector<SimdLevel> levels = {SimdLevel::kSse2};
  if (HostHasAvx2Fma()) levels.push_back(SimdLevel::kAvx2Fma);
  return levels;
}

// Every kernel this CPU runs (all of them on an AVX-512 BF16/VNNI/FP16 machine) matches its
// scalar model, and a changed value or a wrong iteration count is caught.
TEST(KernelsTest, PeakKernelsMatchTheirScalarModelsAndCorruptionIsCaught) {
  const IsaFeatures host = UsableHostFeatures();
  int ran = 0;
  for (const PeakKernel& kernel : PeakKernels()) {
    if (!PeakKernelSupported(kernel, host).ok()) continue;
    ++ran;
    for (const int64_t iterations : {int64_t{1}, int64_t{2}, int64_t{1001}}) {
      std::vector<double> out(static_cast<size_t>(PeakOutputCount(kernel)));
      RunPeakKernel(kernel, iterations, 1.0, out);
      EXPECT_TRUE(VerifyPeakKernel(kernel, iterations, 1.0, out).ok())
          << kernel.isa << " " << PrecisionName(kernel.precision) << " " << iterations << ": "
          << VerifyPeakKernel(kernel, iterations, 1.0, out).error().message;
      EXPECT_FALSE(VerifyPeakKernel(kernel, iterations + 1, 1.0, out).ok()) << kernel.isa;
      out[5] += 1.0;
      const Status corrupted = VerifyPeakKernel(kernel, iterations, 1.0, out);
      ASSERT_FALSE(corrupted.ok());
      EXPECT_NE(corrupted.error().message.find("1 of"), std::string::npos)
          << corrupted.error().message;
    }
  }
  // SSE2 fp64/fp32 run on every x86-64 CPU.
  EXPECT_GE(ran, 2);
}

// The closed form of chain 3 after `iterations` steps, for the kernels whose steps all add.
double ClosedForm(const PeakKernel& kernel, int64_t iterations) {
  const double n = static_cast<double>(iterations);
  switch (kernel.precision) {
    case Precision::kFp32:
      return 1.0 + 3 / 16.0 + n * 0x1p-23;
    case Precision::kBf16:
      return 1.0 + 3 / 16.0 + n * 3 * 0x1p-23;
    default:
      return 3000.0 + (kernel.id == PeakKernelId::kAmxInt8 ? 48.0 : 600.0) * n;
  }
}

TEST(KernelsTest, PeakKernelsStayExactAtTheirLimits) {
  const IsaFeatures host = UsableHostFeatures();
  for (const PeakKernelId id :
       {PeakKernelId::kAvx2Fp32, PeakKernelId::kAvx2Int8, PeakKernelId::kAvx512Bf16,
        PeakKernelId::kAvx512VnniInt8, PeakKernelId::kAmxInt8}) {
    const PeakKernel& kernel = PeakKernelById(id);
    // The model is the closed form (checked on a count the model runs quickly)...
    EXPECT_EQ(ModelPeakChains(kernel, 4097, 1.0)[3], ClosedForm(kernel, 4097)) << kernel.isa;
    if (!PeakKernelSupported(kernel, host).ok()) continue;
    // ... and the kernel still gives it at its exactness limit (against the closed form: the
    // model's 2^21 scalar steps per chain would take most of a sanitizer build's test time).
    const int64_t iterations = MaxExactPeakIterations(kernel);
    std::vector<double> out(static_cast<size_t>(PeakOutputCount(kernel)));
    RunPeakKernel(kernel, iterations, 1.0, out);
    const size_t chain3 = 3 * static_cast<size_t>(kernel.lanes);
    for (size_t lane = 0; lane < static_cast<size_t>(kernel.lanes); ++lane) {
      ASSERT_EQ(out[chain3 + lane], ClosedForm(kernel, iterations)) << kernel.isa << " " << lane;
    }
  }
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

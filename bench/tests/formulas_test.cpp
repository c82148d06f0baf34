// FLOP and byte counts behind every throughput.
#include <gtest/gtest.h>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/bench/stream.h"

namespace xpuperf::bench {
namespace {

TEST(FormulasTest, GemmCountsTwoMnkAndThreeMatrices) {
  const GemmShape shape{256, 4096, 1024};
  EXPECT_DOUBLE_EQ(GemmFlops(shape), 2.0 * 256 * 4096 * 1024);
  EXPECT_DOUBLE_EQ(GemmBytes(shape, Precision::kFp64),
                   8.0 * (256 * 1024 + 1024 * 4096 + 256 * 4096));
  EXPECT_DOUBLE_EQ(GemmBytes(shape, Precision::kFp32),
                   4.0 * (256 * 1024 + 1024 * 4096 + 256 * 4096));
}

TEST(FormulasTest, StreamBytesFollowStreamAndWriteAllocate) {
  EXPECT_EQ(StreamBytesPerElement(StreamKernel::kCopy), 16);
  EXPECT_EQ(StreamBytesPerElement(StreamKernel::kScale), 16);
  EXPECT_EQ(StreamBytesPerElement(StreamKernel::kAdd), 24);
  EXPECT_EQ(StreamBytesPerElement(StreamKernel::kTriad), 24);
  // x 1.5 for copy/scale, x 4/3 for add/triad.
  EXPECT_EQ(WriteAllocateBytesPerElement(StreamKernel::kCopy), 24);
  EXPECT_EQ(WriteAllocateBytesPerElement(StreamKernel::kTriad), 32);
  EXPECT_EQ(StreamFlopsPerElement(StreamKernel::kCopy), 0);
  EXPECT_EQ(StreamFlopsPerElement(StreamKernel::kTriad), 2);
  EXPECT_FALSE(ParseStreamKernel("daxpy").ok());
}

TEST(FormulasTest, WidenedGemmsWriteFourByteResults) {
  const GemmShape shape{16, 32, 64};
  EXPECT_DOUBLE_EQ(GemmBytes(shape, Precision::kBf16), 2.0 * (16 * 64 + 64 * 32) + 4.0 * 16 * 32);
  EXPECT_DOUBLE_EQ(GemmBytes(shape, Precision::kInt8), 1.0 * (16 * 64 + 64 * 32) + 4.0 * 16 * 32);
}

TEST(FormulasTest, PeakOpsArePerLanePerChainStep) {
  const PeakKernel& avx2 = PeakKernelById(PeakKernelId::kAvx2Fp64);
  EXPECT_EQ(avx2.lanes, 4);
  EXPECT_EQ(PeakKernelById(PeakKernelId::kAvx2Fp32).lanes, 8);
  EXPECT_EQ(PeakKernelById(PeakKernelId::kSse2Fp64).lanes, 2);
  EXPECT_DOUBLE_EQ(PeakOpsPerCall(avx2, 1000), 2.0 * 1000 * 12 * 4);
  // vdpbf16ps: 16 fp32 lanes x 2 bf16 MACs = 64 FLOP per instruction.
  EXPECT_DOUBLE_EQ(PeakOpsPerCall(PeakKernelById(PeakKernelId::kAvx512Bf16), 1), 12 * 16 * 4);
  // vpdpbusd zmm: 16 int32 lanes x 4 u8 x s8 MACs = 128 OP per instruction.
  EXPECT_DOUBLE_EQ(PeakOpsPerCall(PeakKernelById(PeakKernelId::kAvx512VnniInt8), 1), 12 * 16 * 8);
  EXPECT_EQ(ComputeMetricName(Precision::kInt8), "int8_ops");
  EXPECT_EQ(ComputeMetricName(Precision::kBf16), "bf16_flops");
  EXPECT_EQ(ParsePrecision("fp16"), Precision::kFp16);
  EXPECT_FALSE(ParsePrecision("fp8").has_value());
}

TEST(FormulasTest, BestSimdLevelNeedsAvx2AndFma) {
  EXPECT_EQ(BestSimdLevel({"sse2", "avx", "avx2", "fma"}), SimdLevel::kAvx2Fma);
  EXPECT_EQ(BestSimdLevel({"sse2", "avx", "avx2"}), SimdLevel::kSse2);
  EXPECT_EQ(BestSimdLevel({}), SimdLevel::kSse2);
}

}  // namespace
}  // namespace xpuperf::bench

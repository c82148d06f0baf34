// FLOP and byte counts behind every throughput.
#include <gtest/gtest.h>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
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

TEST(FormulasTest, FmaFlopsAreTwoPerLanePerChainStep) {
  EXPECT_EQ(VectorLanes(Precision::kFp64, SimdLevel::kAvx2Fma), 4);
  EXPECT_EQ(VectorLanes(Precision::kFp32, SimdLevel::kAvx2Fma), 8);
  EXPECT_EQ(VectorLanes(Precision::kFp64, SimdLevel::kSse2), 2);
  EXPECT_DOUBLE_EQ(FmaFlopsPerCall(Precision::kFp64, SimdLevel::kAvx2Fma, 1000),
                   2.0 * 1000 * kFmaChains * 4);
}

TEST(FormulasTest, BestSimdLevelNeedsAvx2AndFma) {
  EXPECT_EQ(BestSimdLevel({"sse2", "avx", "avx2", "fma"}), SimdLevel::kAvx2Fma);
  EXPECT_EQ(BestSimdLevel({"sse2", "avx", "avx2"}), SimdLevel::kSse2);
  EXPECT_EQ(BestSimdLevel({}), SimdLevel::kSse2);
}

}  // namespace
}  // namespace xpuperf::bench

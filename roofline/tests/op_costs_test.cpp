#include "op_costs.h"

#include <gtest/gtest.h>

namespace xpuperf::roofline {
namespace {

TEST(OpCosts, DtypeSizes) {
  EXPECT_EQ(*DtypeBytes("fp64"), 8);
  EXPECT_EQ(*DtypeBytes("bf16"), 2);
  EXPECT_EQ(*DtypeBytes("fp8"), 1);
  EXPECT_EQ(DtypeBytes("fp4").error().code, ErrorCode::kInvalidArgument);
}

// The same counts the gemm benchmark writes into its records (bench/src/gemm_benchmark.cpp).
TEST(OpCosts, GemmMatchesTheBenchmarkCounts) {
  const OpCost square = *GemmCost({1024, 1024, 1024, 1, false, "fp32"});
  EXPECT_EQ(square.flops, 2147483648.0);  // 2 x 1024^3
  EXPECT_EQ(square.bytes, 12582912.0);    // 3 x 1024^2 x 4
  const OpCost wide = *GemmCost({256, 4096, 4096, 1, false, "fp32"});
  EXPECT_EQ(wide.bytes, 75497472.0);  // (256*4096 + 4096*4096 + 256*4096) x 4
}

TEST(OpCosts, GemmBatchAndAccumulate) {
  const OpCost c = *GemmCost({2, 2, 2, 3, true, "fp32"});
  EXPECT_EQ(c.flops, 3 * (16 + 8));       // 2mnk + 2mn per product
  EXPECT_EQ(c.bytes, 3 * (4 * 4) * 4.0);  // A, B, C out, C in: 4 elements each
  EXPECT_FALSE(GemmCost({0, 2, 2, 1, false, "fp32"}).ok());
}

TEST(OpCosts, AttentionCountsBothMatmuls) {
  // QK^T: s*s*d multiply-adds, PV: s*s*d: 2 x 2 x 4 x 4 x 2 = 128 FLOPs.
  AttentionShape shape{1, 1, 4, 2, 0, false, "bf16"};
  OpCost full = *AttentionCost(shape);
  EXPECT_EQ(full.flops, 128);
  EXPECT_EQ(full.bytes, 4 * 4 * 2 * 2);  // Q, K, V, O: 4 x 2 elements each, 2 bytes
  shape.causal = true;
  EXPECT_EQ(AttentionCost(shape)->flops, 64);  // 4*4*4 - 2*4*4 = 32, x head_dim 2
  shape.causal = false;
  shape.kv_seq_len = 8;
  shape.batch = 2;
  shape.heads = 3;
  EXPECT_EQ(AttentionCost(shape)->flops, 4.0 * 4 * 8 * 3 * 2 * 2);
}

TEST(OpCosts, Elementwise) {
  const OpCost c = *ElementwiseCost({1e6, 2, 1, 1, "fp32"});
  EXPECT_EQ(c.flops, 1e6);
  EXPECT_EQ(c.bytes, 12e6);
}

TEST(OpCosts, Conv2d) {
  // 3x32x32 input, 8 filters 3x3, padding 1: 32x32 output.
  Conv2dShape shape;
  shape.in_channels = 3;
  shape.out_channels = 8;
  shape.height = shape.width = 32;
  shape.kernel_h = shape.kernel_w = 3;
  shape.padding = 1;
  const OpCost c = *Conv2dCost(shape);
  EXPECT_EQ(c.flops, 2.0 * 8 * 32 * 32 * 3 * 3 * 3);  // 442368
  EXPECT_EQ(c.bytes, (3 * 1024 + 8 * 27 + 8 * 1024) * 4.0);
  shape.stride = 2;  // floor((32 + 2 - 3) / 2) + 1 = 16
  EXPECT_EQ(Conv2dCost(shape)->flops, 2.0 * 8 * 16 * 16 * 27);
  shape.kernel_h = shape.kernel_w = 40;
  EXPECT_FALSE(Conv2dCost(shape).ok());
}

TEST(OpCosts, CollectiveBusBytes) {
  EXPECT_EQ(*CollectiveBusBytes("all_reduce", 1e8, 4), 1.5e8);
  EXPECT_EQ(*CollectiveBusBytes("all_gather", 1e8, 4), 0.75e8);
  EXPECT_EQ(*CollectiveBusBytes("broadcast", 1e8, 4), 1e8);
  EXPECT_FALSE(CollectiveBusBytes("gossip", 1e8, 4).ok());
  EXPECT_FALSE(CollectiveBusBytes("all_reduce", 1e8, 0).ok());
}

}  // namespace
}  // namespace xpuperf::roofline

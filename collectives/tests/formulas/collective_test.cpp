// The nccl-tests conventions: bus-bandwidth factors, byte counts and element counts.
#include "xpuperf/collectives/collective.h"

#include <gtest/gtest.h>

namespace xpuperf::collectives {
namespace {

TEST(CollectiveTest, NamesRoundTripAndUnknownNamesAreRejected) {
  for (CollectiveOp op : AllCollectives()) {
    Result<CollectiveOp> parsed = ParseCollective(CollectiveName(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_EQ(AllCollectives().size(), 6u);
  Result<CollectiveOp> bad = ParseCollective("allreduce");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("all_reduce, all_gather"), std::string::npos);
}

TEST(CollectiveTest, BusBandwidthFactorsAreNcclTests) {
  // n = 4: all_reduce 2*3/4 = 1.5; the gathers and scatters 3/4; broadcast and ring 1.
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kBroadcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kSendRecv, 4), 1.0);
  // n = 2: all_reduce 2*1/2 = 1; n = 8: 2*7/8 = 1.75, 7/8 = 0.875; n = 1: nothing crosses a bus.
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 1), 0.0);
}

TEST(CollectiveTest, AlgorithmBandwidthIsBytesOverSeconds) {
  EXPECT_DOUBLE_EQ(AlgorithmBandwidth(8e6, 0.004), 2e9);
  EXPECT_DOUBLE_EQ(AlgorithmBandwidth(8e6, 0), 0);
}

TEST(CollectiveTest, ByteCountsFollowNcclTests) {
  // 1 MiB of floats on 4 ranks.
  const int64_t mib = 1 << 20;
  Result<CollectiveShape> reduce = ShapeFor(CollectiveOp::kAllReduce, mib, 4, 4);
  ASSERT_TRUE(reduce.ok());
  EXPECT_EQ(reduce->bytes, mib);
  EXPECT_EQ(reduce->count, 262144);
  EXPECT_EQ(reduce->send_elements, 262144);
  EXPECT_EQ(reduce->recv_elements, 262144);

  // all_gather: S is the whole output; each rank contributes S / n.
  Result<CollectiveShape> gather = ShapeFor(CollectiveOp::kAllGather, mib, 4, 4);
  ASSERT_TRUE(gather.ok());
  EXPECT_EQ(gather->bytes, mib);
  EXPECT_EQ(gather->count, 65536);
  EXPECT_EQ(gather->send_elements, 65536);
  EXPECT_EQ(gather->recv_elements, 262144);

  // reduce_scatter: S is the whole input; each rank keeps S / n.
  Result<CollectiveShape> scatter = ShapeFor(CollectiveOp::kReduceScatter, mib, 4, 4);
  ASSERT_TRUE(scatter.ok());
  EXPECT_EQ(scatter->bytes, mib);
  EXPECT_EQ(scatter->count, 65536);
  EXPECT_EQ(scatter->send_elements, 262144);
  EXPECT_EQ(scatter->recv_elements, 65536);

  // all_to_all: S per rank, S / n to each peer.
  Result<CollectiveShape> all_to_all = ShapeFor(CollectiveOp::kAllToAll, mib, 4, 4);
  ASSERT_TRUE(all_to_all.ok());
  EXPECT_EQ(all_to_all->bytes, mib);
  EXPECT_EQ(all_to_all->block, 65536);
  EXPECT_EQ(all_to_all->send_elements, 262144);
  EXPECT_EQ(all_to_all->recv_elements, 262144);

  // broadcast is in place; send_recv sends the whole buffer to the next rank.
  Result<CollectiveShape> broadcast = ShapeFor(CollectiveOp::kBroadcast, mib, 4, 4);
  ASSERT_TRUE(broadcast.ok());
  EXPECT_EQ(broadcast->send_elements, 0);
  EXPECT_EQ(broadcast->recv_elements, 262144);
  Result<CollectiveShape> ring = ShapeFor(CollectiveOp::kSendRecv, mib, 4, 4);
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring->bytes, mib);
  EXPECT_EQ(ring->send_elements, 262144);
}

TEST(CollectiveTest, SizesRoundDownToWholeBlocksWithOneElementPerRankAtLeast) {
  // 100 bytes on 3 ranks: 25 floats; all_gather takes 8 per rank = 24 floats = 96 bytes.
  Result<CollectiveShape> gather = ShapeFor(CollectiveOp::kAllGather, 100, 3, 4);
  ASSERT_TRUE(gather.ok());
  EXPECT_EQ(gather->bytes, 96);
  EXPECT_EQ(gather->count, 8);
  // 10 bytes of floats: 2 elements for all_reduce (8 bytes).
  Result<CollectiveShape> reduce = ShapeFor(CollectiveOp::kAllReduce, 10, 3, 4);
  ASSERT_TRUE(reduce.ok());
  EXPECT_EQ(reduce->bytes, 8);
  // 8 bytes on 4 ranks cannot split: one float per rank, 16 bytes moved.
  Result<CollectiveShape> tiny = ShapeFor(CollectiveOp::kReduceScatter, 8, 4, 4);
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->count, 1);
  EXPECT_EQ(tiny->bytes, 16);
  // 1 byte still moves one float.
  Result<CollectiveShape> byte = ShapeFor(CollectiveOp::kBroadcast, 1, 2, 4);
  ASSERT_TRUE(byte.ok());
  EXPECT_EQ(byte->bytes, 4);
}

TEST(CollectiveTest, BadShapeArgumentsAreErrors) {
  EXPECT_FALSE(ShapeFor(CollectiveOp::kAllReduce, 0, 4, 4).ok());
  EXPECT_FALSE(ShapeFor(CollectiveOp::kAllReduce, 8, 0, 4).ok());
  EXPECT_FALSE(ShapeFor(CollectiveOp::kAllReduce, 8, 4, 0).ok());
}

}  // namespace
}  // namespace xpuperf::collectives

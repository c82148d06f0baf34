// The data pattern and the verification: expected values by hand and from a simulation of each
// collective's MPI semantics over the ranks' send buffers; a corrupted element is counted.
#include "xpuperf/collectives/pattern.h"

#include <gtest/gtest.h>

#include <vector>

namespace xpuperf::collectives {
namespace {

constexpr int kRanks = 4;

struct Buffers {
  std::vector<std::vector<float>> send;  // per rank
  std::vector<std::vector<float>> recv;  // per rank, filled like before the operation
};

Buffers Filled(CollectiveOp op, const CollectiveShape& shape) {
  Buffers b;
  for (int r = 0; r < kRanks; ++r) {
    b.send.emplace_back(shape.send_elements);
    b.recv.emplace_back(shape.recv_elements);
    FillBuffers(op, shape, r, b.send[r], b.recv[r]);
  }
  return b;
}

// What MPI computes, written from the MPI standard's definitions of each call.
std::vector<std::vector<float>> Simulate(CollectiveOp op, const CollectiveShape& shape,
                                         const Buffers& b) {
  std::vector<std::vector<float>> out = b.recv;
  const int64_t block = shape.block;
  for (int r = 0; r < kRanks; ++r) {
    for (int64_t i = 0; i < shape.recv_elements; ++i) {
      float value = 0;
      switch (op) {
        case CollectiveOp::kAllReduce:  // MPI_Allreduce(MPI_SUM)
          for (int s = 0; s < kRanks; ++s) value += b.send[s][i];
          break;
        case CollectiveOp::kAllGather:  // block s of the output is rank s's send buffer
          value = b.send[i / block][i % block];
          break;
        case CollectiveOp::kReduceScatter:  // rank r gets block r of the sum
          for (int s = 0; s < kRanks; ++s) value += b.send[s][r * block + i];
          break;
        case CollectiveOp::kAllToAll:  // block s of r's output is block r of s's send buffer
          value = b.send[i / block][r * block + i % block];
          break;
        case CollectiveOp::kBroadcast:  // root 0's buffer everywhere
          value = b.recv[0][i];
          break;
        case CollectiveOp::kSendRecv:  // from rank r - 1
          value = b.send[(r + kRanks - 1) % kRanks][i];
          break;
      }
      out[r][i] = value;
    }
  }
  return out;
}

TEST(PatternTest, InputsAreSmallIntegersThatDependOnRankAndIndex) {
  // (7 rank + 3 index) mod 17 + 1, by hand.
  EXPECT_EQ(InputValue(0, 0), 1.0f);
  EXPECT_EQ(InputValue(1, 0), 8.0f);
  EXPECT_EQ(InputValue(2, 0), 15.0f);
  EXPECT_EQ(InputValue(3, 0), 5.0f);  // 21 mod 17 = 4
  EXPECT_EQ(InputValue(0, 1), 4.0f);
  EXPECT_EQ(InputValue(1, 1), 11.0f);
  EXPECT_EQ(InputValue(0, 17), InputValue(0, 0));
  for (int r = 0; r < 40; ++r) {
    for (int64_t i = 0; i < 40; ++i) {
      EXPECT_GE(InputValue(r, i), 1.0f);
      EXPECT_LE(InputValue(r, i), 17.0f);
    }
  }
}

TEST(PatternTest, ExpectedValuesByHand) {
  const CollectiveShape reduce = *ShapeFor(CollectiveOp::kAllReduce, 64, kRanks, 4);
  // Element 0 summed over ranks 0..3: 1 + 8 + 15 + 5.
  EXPECT_EQ(ExpectedValue(CollectiveOp::kAllReduce, reduce, 2, kRanks, 0), 29.0f);
  const CollectiveShape ring = *ShapeFor(CollectiveOp::kSendRecv, 64, kRanks, 4);
  // Rank 0 receives from rank 3; rank 2 from rank 1.
  EXPECT_EQ(ExpectedValue(CollectiveOp::kSendRecv, ring, 0, kRanks, 0), 5.0f);
  EXPECT_EQ(ExpectedValue(CollectiveOp::kSendRecv, ring, 2, kRanks, 1), 11.0f);
  // all_gather with 4 floats per rank: element 4 is rank 1's element 0.
  const CollectiveShape gather = *ShapeFor(CollectiveOp::kAllGather, 64, kRanks, 4);
  ASSERT_EQ(gather.block, 4);
  EXPECT_EQ(ExpectedValue(CollectiveOp::kAllGather, gather, 3, kRanks, 4), 8.0f);
}

TEST(PatternTest, ExpectedValuesMatchASimulationOfEveryCollective) {
  for (CollectiveOp op : AllCollectives()) {
    for (int64_t bytes : {4, 16, 100, 1000}) {
      const CollectiveShape shape = *ShapeFor(op, bytes, kRanks, 4);
      const Buffers buffers = Filled(op, shape);
      const auto result = Simulate(op, shape, buffers);
      for (int r = 0; r < kRanks; ++r) {
        for (int64_t i = 0; i < shape.recv_elements; ++i) {
          ASSERT_EQ(ExpectedValue(op, shape, r, kRanks, i), result[r][i])
              << CollectiveName(op) << " " << bytes << " rank " << r << " index " << i;
        }
        EXPECT_EQ(CountWrong(op, shape, r, kRanks, result[r]), 0)
            << CollectiveName(op) << " " << bytes << " rank " << r;
      }
    }
  }
}

TEST(PatternTest, UnwrittenAndCorruptedElementsAreCounted) {
  for (CollectiveOp op : AllCollectives()) {
    const CollectiveShape shape = *ShapeFor(op, 1000, kRanks, 4);
    const Buffers buffers = Filled(op, shape);
    auto result = Simulate(op, shape, buffers);
    // Rank 1's receive buffer as it was before the operation: nothing written.
    EXPECT_EQ(CountWrong(op, shape, 1, kRanks, buffers.recv[1]), shape.recv_elements)
        << CollectiveName(op);
    result[1][3] += 1;
    EXPECT_EQ(CountWrong(op, shape, 1, kRanks, result[1]), 1) << CollectiveName(op);
    result[1][shape.recv_elements - 1] = 0;
    EXPECT_EQ(CountWrong(op, shape, 1, kRanks, result[1]), 2) << CollectiveName(op);
  }
}

TEST(PatternTest, BroadcastRootHoldsTheDataAndOthersStartUnwritten) {
  const CollectiveShape shape = *ShapeFor(CollectiveOp::kBroadcast, 40, kRanks, 4);
  const Buffers buffers = Filled(CollectiveOp::kBroadcast, shape);
  EXPECT_EQ(buffers.recv[0][0], 1.0f);
  EXPECT_EQ(buffers.recv[0][1], 4.0f);
  EXPECT_EQ(buffers.recv[2][0], kUnwritten);
  EXPECT_EQ(CountWrong(CollectiveOp::kBroadcast, shape, 0, kRanks, buffers.recv[0]), 0);
}

}  // namespace
}  // namespace xpuperf::collectives

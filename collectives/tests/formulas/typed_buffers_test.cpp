// One rank's typed buffers and the check of its result, with the collectives simulated on the
// host: the exact results pass for every datatype and reduction, a corrupted element is counted.
#include "xpuperf/collectives/typed_buffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace xpuperf::collectives {
namespace {

// The result rank `rank` should receive, computed from every rank's buffers (the reduction in
// double, then stored in the type; avg as NCCL's: the sum divided by the ranks).
std::vector<unsigned char> Simulate(CollectiveOp op, const CollectiveShape& shape,
                                    const CollectiveVariant& v, int rank, int ranks) {
  const int size = DataTypeSize(v.dtype);
  std::vector<TypedBuffers> all;
  for (int r = 0; r < ranks; ++r) all.push_back(MakeTypedBuffers(op, shape, v, r));
  auto input = [&](int r, int64_t i) {
    const std::vector<unsigned char>& data = v.in_place ? all[r].recv : all[r].send;
    return DecodeValue(v.dtype, data.data() + i * size);
  };
  std::vector<unsigned char> out(static_cast<size_t>(shape.recv_elements + 1) * size);
  const int64_t block = std::max<int64_t>(shape.block, 1);
  for (int64_t i = 0; i < shape.recv_elements; ++i) {
    double value = 0;
    switch (op) {
      case CollectiveOp::kAllReduce:
      case CollectiveOp::kReduceScatter: {
        const int64_t index = op == CollectiveOp::kReduceScatter ? rank * block + i : i;
        value = input(0, index);
        for (int r = 1; r < ranks; ++r) {
          const double x = input(r, index);
          value = v.redop == ReduceOp::kProd  ? value * x
                  : v.redop == ReduceOp::kMin ? std::min(value, x)
                  : v.redop == ReduceOp::kMax ? std::max(value, x)
                                              : value + x;
        }
        if (v.redop == ReduceOp::kAvg) {
          value /= ranks;
          if (v.dtype == DataType::kInt32) value = std::trunc(value);
        }
        break;
      }
      case CollectiveOp::kAllGather:
        value = v.in_place ? input(static_cast<int>(i / block), i)
                           : input(static_cast<int>(i / block), i % block);
        break;
      case CollectiveOp::kAllToAll:
        value = input(static_cast<int>(i / block), rank * block + i % block);
        break;
      case CollectiveOp::kBroadcast:
        value = DecodeValue(v.dtype, all[0].recv.data() + i * size);  // rank 0's data
        break;
      case CollectiveOp::kSendRecv:
        value = input((rank + ranks - 1) % ranks, i);
        break;
    }
    EncodeValue(v.dtype, value, out.data() + i * size);
  }
  return out;
}

TEST(TypedBuffersTest, ExactResultsPassAndACorruptedElementIsCounted) {
  constexpr int kRanks = 4;
  for (CollectiveOp op : AllCollectives()) {
    for (DataType dtype : AllDataTypes()) {
      for (ReduceOp redop : AllReduceOps()) {
        if (!Reduces(op) && redop != ReduceOp::kSum) continue;
        for (bool in_place : {false, true}) {
          const CollectiveVariant v{dtype, redop, in_place};
          auto shape = ShapeFor(op, 4096, kRanks, DataTypeSize(dtype));
          ASSERT_TRUE(shape.ok());
          for (int rank = 0; rank < kRanks; ++rank) {
            std::vector<unsigned char> result = Simulate(op, *shape, v, rank, kRanks);
            const std::string what =
                std::string(CollectiveName(op)) + " " + std::string(DataTypeName(dtype)) + " " +
                std::string(ReduceOpName(redop)) + (in_place ? " in place" : "") + " rank " +
                std::to_string(rank);
            EXPECT_EQ(CountWrongTyped(op, *shape, v, rank, kRanks, result.data()), 0) << what;
            EncodeValue(dtype, 1e4 + 3, result.data() + 5 * DataTypeSize(dtype));
            EXPECT_EQ(CountWrongTyped(op, *shape, v, rank, kRanks, result.data()), 1) << what;
          }
        }
      }
    }
  }
}

TEST(TypedBuffersTest, InPlaceTheInputWaitsWhereTheResultLands) {
  const CollectiveVariant v{DataType::kFloat, ReduceOp::kSum, true};
  auto shape = ShapeFor(CollectiveOp::kAllGather, 64, 4, 4);
  ASSERT_TRUE(shape.ok());
  const TypedBuffers b = MakeTypedBuffers(CollectiveOp::kAllGather, *shape, v, 2);
  EXPECT_EQ(b.send.size(), 4u);  // the one spare element
  const int64_t count = shape->count;
  EXPECT_EQ(DecodeValue(DataType::kFloat, b.recv.data()), -1.0);  // rank 0's block: unwritten
  EXPECT_EQ(DecodeValue(DataType::kFloat, b.recv.data() + 2 * count * 4),
            Contribution(CollectiveOp::kAllGather, v, 2, 0));
}

}  // namespace
}  // namespace xpuperf::collectives

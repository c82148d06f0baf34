#include "xpuperf/collectives/typed_buffers.h"

#include <algorithm>
#include <cmath>

#include "xpuperf/collectives/pattern.h"

namespace xpuperf::collectives {

double Contribution(CollectiveOp op, const CollectiveVariant& variant, int rank, int64_t index) {
  return ContributedValue(Reduces(op) ? variant.redop : ReduceOp::kSum, rank, index);
}

TypedBuffers MakeTypedBuffers(CollectiveOp op, const CollectiveShape& shape,
                              const CollectiveVariant& v, int rank) {
  const int size = DataTypeSize(v.dtype);
  const int64_t one_buffer = std::max(shape.send_elements, shape.recv_elements);
  TypedBuffers b;
  b.send.resize(static_cast<size_t>((v.in_place ? 0 : shape.send_elements) + 1) * size);
  b.recv.resize(static_cast<size_t>((v.in_place ? one_buffer : shape.recv_elements) + 1) * size);
  const int64_t count = shape.count;
  const auto put = [&](std::vector<unsigned char>& buffer, int64_t i, double value) {
    EncodeValue(v.dtype, value, buffer.data() + i * size);
  };
  const auto elements = [&](const std::vector<unsigned char>& buffer) {
    return static_cast<int64_t>(buffer.size() / size) - 1;
  };
  for (int64_t i = 0; i < elements(b.recv); ++i) put(b.recv, i, kUnwritten);
  if (!v.in_place) {
    for (int64_t i = 0; i < elements(b.send); ++i) put(b.send, i, Contribution(op, v, rank, i));
    if (op == CollectiveOp::kBroadcast && rank == 0) {
      for (int64_t i = 0; i < count; ++i) put(b.recv, i, Contribution(op, v, 0, i));
    }
    return b;
  }
  switch (op) {
    case CollectiveOp::kAllGather:  // this rank's block at its place
      for (int64_t j = 0; j < count; ++j) {
        put(b.recv, rank * count + j, Contribution(op, v, rank, j));
      }
      break;
    case CollectiveOp::kBroadcast:
      if (rank == 0) {
        for (int64_t i = 0; i < count; ++i) put(b.recv, i, Contribution(op, v, 0, i));
      }
      break;
    default:  // the send data, where the result will be
      for (int64_t i = 0; i < shape.send_elements; ++i) {
        put(b.recv, i, Contribution(op, v, rank, i));
      }
      break;
  }
  return b;
}

int64_t CountWrongTyped(CollectiveOp op, const CollectiveShape& shape, const CollectiveVariant& v,
                        int rank, int ranks, const unsigned char* result) {
  const int size = DataTypeSize(v.dtype);
  const int64_t block = std::max<int64_t>(shape.block, 1);
  int64_t wrong = 0;
  for (int64_t i = 0; i < shape.recv_elements; ++i) {
    const double got = DecodeValue(v.dtype, result + i * size);
    double expected = 0;
    double tolerance = 0;
    switch (op) {
      case CollectiveOp::kAllReduce:
      case CollectiveOp::kReduceScatter: {
        const int64_t index = op == CollectiveOp::kReduceScatter ? rank * block + i : i;
        expected = ExpectedReduction(v.redop, v.dtype, ranks, index);
        // The type's rounding of the exact value, and of the arithmetic that led there.
        alignas(8) unsigned char rounded[8] = {};
        EncodeValue(v.dtype, expected, rounded);
        tolerance = std::abs(DecodeValue(v.dtype, rounded) - expected) +
                    Tolerance(v.redop, v.dtype, ranks, expected);
        break;
      }
      case CollectiveOp::kAllGather:
        expected = Contribution(op, v, static_cast<int>(i / block), i % block);
        break;
      case CollectiveOp::kAllToAll:
        expected = Contribution(op, v, static_cast<int>(i / block), rank * block + i % block);
        break;
      case CollectiveOp::kBroadcast:
        expected = Contribution(op, v, 0, i);
        break;
      case CollectiveOp::kSendRecv:
        expected = Contribution(op, v, (rank + ranks - 1) % ranks, i);
        break;
    }
    wrong += !(std::abs(got - expected) <= tolerance);
  }
  return wrong;
}

}  // namespace xpuperf::collectives

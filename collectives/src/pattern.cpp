#include "xpuperf/collectives/pattern.h"

#include <algorithm>

namespace xpuperf::collectives {
namespace {

float SumOverRanks(int ranks, int64_t index) {
  float sum = 0;
  for (int r = 0; r < ranks; ++r) sum += InputValue(r, index);
  return sum;
}

}  // namespace

float InputValue(int rank, int64_t index) {
  return static_cast<float>((int64_t{7} * (rank % 17) + 3 * (index % 17)) % 17 + 1);
}

void FillBuffers(CollectiveOp op, const CollectiveShape& shape, int rank, std::span<float> send,
                 std::span<float> recv) {
  for (size_t i = 0; i < send.size(); ++i) send[i] = InputValue(rank, static_cast<int64_t>(i));
  std::fill(recv.begin(), recv.end(), kUnwritten);
  if (op == CollectiveOp::kBroadcast && rank == 0) {
    for (size_t i = 0; i < recv.size(); ++i) recv[i] = InputValue(0, static_cast<int64_t>(i));
  }
}

float ExpectedValue(CollectiveOp op, const CollectiveShape& shape, int rank, int ranks,
                    int64_t index) {
  const int64_t block = std::max<int64_t>(shape.block, 1);
  switch (op) {
    case CollectiveOp::kAllReduce:
      return SumOverRanks(ranks, index);
    case CollectiveOp::kAllGather:
      // Block s comes from rank s, element j of its send buffer.
      return InputValue(static_cast<int>(index / block), index % block);
    case CollectiveOp::kReduceScatter:
      // Rank r keeps block r of the element-wise sum.
      return SumOverRanks(ranks, rank * block + index);
    case CollectiveOp::kAllToAll:
      // Block s comes from rank s, which sent its block number `rank`.
      return InputValue(static_cast<int>(index / block), rank * block + index % block);
    case CollectiveOp::kBroadcast:
      return InputValue(0, index);
    case CollectiveOp::kSendRecv:
      return InputValue((rank + ranks - 1) % ranks, index);
  }
  return kUnwritten;
}

int64_t CountWrong(CollectiveOp op, const CollectiveShape& shape, int rank, int ranks,
                   std::span<const float> recv) {
  int64_t wrong = 0;
  if (op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter) {
    // The sums repeat with period 17 in the global index: compute them once.
    float sums[17];
    for (int k = 0; k < 17; ++k) sums[k] = SumOverRanks(ranks, k);
    const int64_t offset = op == CollectiveOp::kReduceScatter ? rank * shape.block : 0;
    for (size_t i = 0; i < recv.size(); ++i) {
      wrong += recv[i] != sums[(offset + static_cast<int64_t>(i)) % 17];
    }
    return wrong + std::max<int64_t>(shape.recv_elements - static_cast<int64_t>(recv.size()), 0);
  }
  for (size_t i = 0; i < recv.size(); ++i) {
    wrong += recv[i] != ExpectedValue(op, shape, rank, ranks, static_cast<int64_t>(i));
  }
  return wrong + std::max<int64_t>(shape.recv_elements - static_cast<int64_t>(recv.size()), 0);
}

}  // namespace xpuperf::collectives

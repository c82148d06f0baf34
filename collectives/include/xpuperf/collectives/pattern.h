// The data every rank sends and the exact result every rank must receive. Elements are small
// integers (1..17) that depend on the rank and the index, so sums over up to 986,000 ranks stay
// below 2^24 and are exact in float: any element that differs from ExpectedValue is wrong.
// Pure functions, no MPI.
#pragma once

#include <cstdint>
#include <span>

#include "xpuperf/collectives/collective.h"

namespace xpuperf::collectives {

// Element `index` of rank `rank`'s send data: (7 rank + 3 index) mod 17 + 1.
float InputValue(int rank, int64_t index);

// What no collective writes: the receive buffer is filled with it before the operation.
inline constexpr float kUnwritten = -1.0f;

// Fills rank's send buffer (shape.send_elements; for broadcast, the root's receive buffer with
// the data and every other rank's with kUnwritten) and sets the receive buffer to kUnwritten.
void FillBuffers(CollectiveOp op, const CollectiveShape& shape, int rank, std::span<float> send,
                 std::span<float> recv);

// Receive element `index` on `rank` after the collective over `ranks` ranks. Broadcast's root is
// rank 0; send_recv receives from rank - 1 (mod ranks).
float ExpectedValue(CollectiveOp op, const CollectiveShape& shape, int rank, int ranks,
                    int64_t index);

// Elements of `recv` (shape.recv_elements) that differ from ExpectedValue.
int64_t CountWrong(CollectiveOp op, const CollectiveShape& shape, int rank, int ranks,
                   std::span<const float> recv);

}  // namespace xpuperf::collectives

// One rank's host buffers of a typed collective (nccl-tests' -d, -o and in-place column), filled
// as before the first operation, and this rank's result checked within the type's rounding. Pure
// code: the MPI collectives run on these buffers directly; the NCCL ones copy them to the GPU and
// the result back.
#pragma once

#include <cstdint>
#include <vector>

#include "xpuperf/collectives/collective.h"
#include "xpuperf/collectives/element_type.h"

namespace xpuperf::collectives {

struct TypedBuffers {
  // Elements of DataTypeSize(dtype) bytes, one more than needed so an empty buffer has an address.
  // In place `send` holds that one element only and `recv` is the one buffer (max of the send and
  // receive elements), holding this rank's input where the result will land: all_reduce,
  // reduce_scatter, all_to_all and send_recv its send data; all_gather its block at its place;
  // broadcast rank 0's data. Everything else starts as kUnwritten (-1).
  std::vector<unsigned char> send;
  std::vector<unsigned char> recv;
};

// What rank `rank` puts at `index` of the data it contributes (pattern.h's 1..17, or the powers of
// two of prod).
double Contribution(CollectiveOp op, const CollectiveVariant& variant, int rank, int64_t index);

TypedBuffers MakeTypedBuffers(CollectiveOp op, const CollectiveShape& shape,
                              const CollectiveVariant& variant, int rank);

// The elements of this rank's result (shape.recv_elements of them at `result`) that differ from
// the exact one beyond the type's rounding.
int64_t CountWrongTyped(CollectiveOp op, const CollectiveShape& shape,
                        const CollectiveVariant& variant, int rank, int ranks,
                        const unsigned char* result);

}  // namespace xpuperf::collectives

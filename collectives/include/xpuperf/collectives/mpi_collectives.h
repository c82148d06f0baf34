// The collectives over MPI, timed as nccl-tests does: warm-up operations, then per sample a
// barrier and `iterations` back-to-back operations timed with MPI_Wtime; the time of a sample is
// the maximum over the ranks. Every function here is collective: all ranks of MPI_COMM_WORLD call
// it with the same arguments. Not thread-safe (one thread per rank calls MPI).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/collectives/collective.h"
#include "xpuperf/collectives/element_type.h"
#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

// MPI for the lifetime of the object: MPI_Init on creation (unless MPI is already initialised),
// MPI_Finalize on destruction. MPI_COMM_WORLD returns errors instead of aborting.
class MpiSession {
 public:
  // kUnavailable when MPI cannot be initialised.
  static Result<std::unique_ptr<MpiSession>> Start();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int hosts() const { return hosts_; }                     // distinct shared-memory nodes
  int local_ranks() const { return local_ranks_; }         // ranks on this rank's host
  int local_rank() const { return local_rank_; }           // this rank's index on its host
  const std::string& library() const { return library_; }  // MPI_Get_library_version, 1st line

  // The same value on every rank: the minimum of `value` over the ranks.
  int64_t MinOverRanks(int64_t value) const;
  // Rank 0's value on every rank.
  int64_t FromRankZero(int64_t value) const;

 private:
  MpiSession() = default;
  bool finalize_ = false;
  int rank_ = 0;
  int ranks_ = 1;
  int hosts_ = 1;
  int local_ranks_ = 1;
  int local_rank_ = 0;
  std::string library_;
};

// Ok when every rank's buffers for these sizes fit in half of its host's physical memory; else
// kInvalidArgument naming the size. Collective.
Status CheckBuffersFit(const MpiSession& mpi, const std::vector<CollectiveOp>& ops,
                       const std::vector<int64_t>& sizes, DataType dtype = DataType::kFloat);

// Fills the buffers with the pattern, runs the collective once and verifies every rank's result,
// then warms up and times the samples. Collective. kInvalidArgument for bad options, kInternal
// when an MPI call fails.
Result<CollectiveResult> RunCollective(const MpiSession& mpi, CollectiveOp op, int64_t bytes,
                                       const TimingOptions& options);

// The same for a datatype, a reduction and a placement (nccl-tests' -d, -o and its in-place
// column; typed_collectives.cpp). half and bfloat16 travel as 2-byte elements and reduce in a
// user-defined MPI_Op that works through double and rounds once per step to the type (MPI has no
// such types); avg is MPI_SUM followed by a division by the ranks on each rank, inside the timed
// operation (MPI has no average). In place: MPI_IN_PLACE, and MPI_Sendrecv_replace for send_recv;
// MPI_Bcast has one buffer, so broadcast out of place is kUnsupported. A result differing from the
// exact one by more than its type's rounding (element_type.h) counts as wrong.
Result<CollectiveResult> RunCollective(const MpiSession& mpi, CollectiveOp op, int64_t bytes,
                                       const TimingOptions& options,
                                       const CollectiveVariant& variant);

}  // namespace xpuperf::collectives

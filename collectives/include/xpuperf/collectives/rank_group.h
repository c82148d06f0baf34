// The ranks of one job as the code that runs on each of them sees it: who am I, and the few
// collective operations a benchmark needs to agree, share an id and combine its figures. The MPI
// implementation is MpiRankGroup (mpi_rank_group.h); tests use threads. Every method except the
// accessors is collective: all ranks call it in the same order with the same sizes. An instance is
// used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // This rank's index among the ranks of its host (0 .. ranks on the host - 1).
  virtual int local_rank() const = 0;

  // root's `bytes` into every rank's `bytes`.
  virtual Status Broadcast(std::span<std::byte> bytes, int root) = 0;
  // The same value on every rank.
  virtual Result<int64_t> MinOverRanks(int64_t value) = 0;
  virtual Result<int64_t> SumOverRanks(int64_t value) = 0;
  virtual Result<double> MaxOverRanks(double value) = 0;
  virtual Status Barrier() = 0;
};

}  // namespace xpuperf::collectives

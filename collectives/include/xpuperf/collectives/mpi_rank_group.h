// The ranks of MPI_COMM_WORLD as a RankGroup, for code that must not depend on MPI itself (the
// NCCL collectives of cuda_bench). Not thread-safe, like MPI_THREAD_SINGLE.
#pragma once

#include "xpuperf/collectives/mpi_collectives.h"
#include "xpuperf/collectives/rank_group.h"

namespace xpuperf::collectives {

class MpiRankGroup final : public RankGroup {
 public:
  // session must outlive the group.
  explicit MpiRankGroup(const MpiSession& session) : session_(session) {}
  int rank() const override { return session_.rank(); }
  int ranks() const override { return session_.ranks(); }
  int local_rank() const override { return session_.local_rank(); }
  Status Broadcast(std::span<std::byte> bytes, int root) override;
  Result<int64_t> MinOverRanks(int64_t value) override;
  Result<int64_t> SumOverRanks(int64_t value) override;
  Result<double> MaxOverRanks(double value) override;
  Status Barrier() override;

 private:
  const MpiSession& session_;
};

}  // namespace xpuperf::collectives

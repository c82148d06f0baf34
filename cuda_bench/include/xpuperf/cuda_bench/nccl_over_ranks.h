// NCCL collectives across the ranks of a job, one GPU per rank (nccl-tests' MPI mode): rank 0
// creates the ncclUniqueId and broadcasts it, each rank takes the GPU of its local rank (fewer GPUs
// than ranks on a host is unsupported) and joins with ncclCommInitRank; then each size is verified
// on every rank and timed with CUDA events, a sample's time being the slowest rank's. The ranks
// talk through a collectives::RankGroup, so this code needs no MPI (the cli passes an MpiRankGroup)
// and the agreement logic is tested with threads. Every function taking a group is collective: all
// ranks call it in the same order.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "xpuperf/collectives/collective.h"
#include "xpuperf/collectives/element_type.h"
#include "xpuperf/collectives/rank_group.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

// The GPU of a rank: its local rank. kUnsupported when the host has fewer GPUs than ranks (NCCL
// refuses two ranks on one GPU) or none; kInvalidArgument for a negative local rank.
Result<int> DeviceForLocalRank(int local_rank, int device_count);

// Ok on every rank when `local` is ok on every rank. Otherwise every rank gets the error of the
// lowest failing rank (code and message, " (rank k)" appended when k is not 0), so that all ranks
// take the same branch and none waits in a collective the others skipped.
Status AgreeOnStatus(collectives::RankGroup& group, const Status& local);

// The bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES).
using NcclIdBytes = std::array<char, 128>;
// Rank 0 calls `create`, then its id is on every rank; create's error, agreed, on every rank.
Result<NcclIdBytes> ShareUniqueId(collectives::RankGroup& group,
                                  const std::function<Result<NcclIdBytes>()>& create);

// Records one sample: the slowest rank's seconds / iterations, appended on rank 0 only.
Status RecordSample(collectives::RankGroup& group, double local_seconds, int iterations,
                    collectives::CollectiveResult& result);
// Adds the wrong elements summed over the ranks to result.wrong on rank 0.
Status RecordWrong(collectives::RankGroup& group, int64_t local_wrong,
                   collectives::CollectiveResult& result);

// The buffers of `op` for a requested size over `ranks` GPUs: collectives::ShapeFor's count and
// S (at least one element of `type_size` bytes per rank), with NCCL's out-of-place buffers
// (broadcast has a send buffer).
Result<collectives::CollectiveShape> NcclShapeFor(collectives::CollectiveOp op, int64_t bytes,
                                                  int ranks, int type_size = sizeof(float));

inline constexpr const char* kNcclRanksTimingSource =
    "CUDA events on each rank's stream around back-to-back operations after a barrier; sample "
    "time = max over ranks (MPI_Allreduce MAX)";

// One communicator of the job, one GPU of this rank.
class NcclOverRanks {
 public:
  virtual ~NcclOverRanks() = default;
  // "NCCL 2.23.4, GPU 0 NVIDIA H100 80GB HBM3 on rank 0".
  virtual std::string description() const = 0;
  // Verifies the result once (and after every sample with check_every_sample), warms up, times
  // the samples. Collective over the group. The result's times and #wrong are on rank 0.
  // variant: nccl-tests' -d datatype and -o reduction (ncclFloat … ncclBfloat16, ncclSum …
  // ncclAvg), filled and checked as the MPI collectives are (collectives/typed_buffers.h); and
  // in_place: the result lands in the input buffer, as nccl-tests' in-place column (all_reduce
  // and broadcast in one buffer, all_gather from this rank's block of the output, reduce_scatter
  // into this rank's block of the input); kUnsupported for all_to_all and send_recv, which NCCL
  // has no in-place form of. In place the timed operations change their own input, so each check
  // starts again from the pattern with one untimed operation.
  virtual Result<collectives::CollectiveResult> Run(
      collectives::CollectiveOp op, int64_t bytes, const collectives::TimingOptions& timing,
      const collectives::CollectiveVariant& variant) = 0;
};

// Joins the communicator. kUnsupported, agreed on every rank, when a rank has no CUDA driver, no
// device or no NCCL ("unsupported: no CUDA driver", "unsupported: built without CUDA", ...).
Result<std::unique_ptr<NcclOverRanks>> StartNcclOverRanks(collectives::RankGroup& group);

}  // namespace xpuperf::cuda_bench

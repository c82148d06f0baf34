// The host-side agreement of the NCCL collectives over ranks: no CUDA, so tested everywhere. The
// CUDA part (StartNcclOverRanks) is in cuda/nccl_over_ranks_session.cpp.
#include "xpuperf/cuda_bench/nccl_over_ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

// An error as it travels between ranks: the code, then the message (truncated), NUL-terminated.
constexpr size_t kErrorBytes = 512;

}  // namespace

Result<int> DeviceForLocalRank(int local_rank, int device_count) {
  if (local_rank < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("local rank {}: the MPI launcher gave no local rank", local_rank));
  }
  if (local_rank >= device_count) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: local rank {} on a host with {} GPU{}: NCCL needs "
                                 "one GPU per rank (start at most {} rank{} per host)",
                                 local_rank, device_count, device_count == 1 ? "" : "s",
                                 device_count, device_count == 1 ? "" : "s"));
  }
  return local_rank;
}

Status AgreeOnStatus(collectives::RankGroup& group, const Status& local) {
  const int64_t ranks = group.ranks();
  XPUPERF_ASSIGN_OR_RETURN(const int64_t failing,
                           group.MinOverRanks(local.ok() ? ranks : group.rank()));
  if (failing == ranks) return Status::Ok();
  std::array<std::byte, kErrorBytes> wire{};
  if (group.rank() == failing) {
    wire[0] = static_cast<std::byte>(local.error().code);
    const std::string& message = local.error().message;
    std::memcpy(wire.data() + 1, message.data(), std::min(message.size(), kErrorBytes - 2));
  }
  XPUPERF_RETURN_IF_ERROR(group.Broadcast(wire, static_cast<int>(failing)));
  std::string message(reinterpret_cast<const char*>(wire.data() + 1));
  if (failing != 0) message += fmt::format(" (rank {})", failing);
  return MakeError(static_cast<ErrorCode>(wire[0]), message);
}

Result<NcclIdBytes> ShareUniqueId(collectives::RankGroup& group,
                                  const std::function<Result<NcclIdBytes>()>& create) {
  NcclIdBytes id{};
  Status created = Status::Ok();
  if (group.rank() == 0) {
    Result<NcclIdBytes> made = create();
    if (made.ok()) {
      id = *made;
    } else {
      created = made.error();
    }
  }
  XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group, created));
  XPUPERF_RETURN_IF_ERROR(group.Broadcast(std::as_writable_bytes(std::span<char>(id)), 0));
  return id;
}

Status RecordSample(collectives::RankGroup& group, double local_seconds, int iterations,
                    collectives::CollectiveResult& result) {
  XPUPERF_ASSIGN_OR_RETURN(const double slowest, group.MaxOverRanks(local_seconds));
  if (group.rank() == 0) result.seconds_per_operation.push_back(slowest / iterations);
  return Status::Ok();
}

Status RecordWrong(collectives::RankGroup& group, int64_t local_wrong,
                   collectives::CollectiveResult& result) {
  XPUPERF_ASSIGN_OR_RETURN(const int64_t wrong, group.SumOverRanks(local_wrong));
  if (group.rank() == 0) result.wrong += wrong;
  return Status::Ok();
}

Result<collectives::CollectiveShape> NcclShapeFor(collectives::CollectiveOp op, int64_t bytes,
                                                  int ranks, int type_size) {
  XPUPERF_ASSIGN_OR_RETURN(collectives::CollectiveShape shape,
                           collectives::ShapeFor(op, bytes, ranks, type_size));
  const auto count = static_cast<uint64_t>(shape.count);
  shape.send_elements = static_cast<int64_t>(SendElements(op, count, ranks));
  shape.recv_elements = static_cast<int64_t>(RecvElements(op, count, ranks));
  return shape;
}

#if !XPUPERF_HAVE_CUDA
Result<std::unique_ptr<NcclOverRanks>> StartNcclOverRanks(collectives::RankGroup& group) {
  XPUPERF_RETURN_IF_ERROR(
      AgreeOnStatus(group, MakeError(ErrorCode::kUnsupported, "unsupported: built without CUDA")));
  return MakeError(ErrorCode::kInternal, "unreachable: every rank failed");
}
#endif

}  // namespace xpuperf::cuda_bench

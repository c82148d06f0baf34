#include "xpuperf/collectives/mpi_rank_group.h"

#include <fmt/format.h>
#include <mpi.h>

#include <climits>

namespace xpuperf::collectives {
namespace {

Status Check(int code, const char* call) {
  if (code == MPI_SUCCESS) return Status::Ok();
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return MakeError(ErrorCode::kInternal, fmt::format("{} failed: {}", call, text));
}

template <typename T>
Result<T> AllReduce(T value, MPI_Datatype type, MPI_Op op, const char* call) {
  T out = value;
  XPUPERF_RETURN_IF_ERROR(Check(MPI_Allreduce(&value, &out, 1, type, op, MPI_COMM_WORLD), call));
  return out;
}

}  // namespace

Status MpiRankGroup::Broadcast(std::span<std::byte> bytes, int root) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return MakeError(ErrorCode::kInvalidArgument, "MPI_Bcast of more than INT_MAX bytes");
  }
  return Check(
      MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, root, MPI_COMM_WORLD),
      "MPI_Bcast");
}

Result<int64_t> MpiRankGroup::MinOverRanks(int64_t value) {
  return AllReduce(value, MPI_INT64_T, MPI_MIN, "MPI_Allreduce(MIN)");
}

Result<int64_t> MpiRankGroup::SumOverRanks(int64_t value) {
  return AllReduce(value, MPI_INT64_T, MPI_SUM, "MPI_Allreduce(SUM)");
}

Result<double> MpiRankGroup::MaxOverRanks(double value) {
  return AllReduce(value, MPI_DOUBLE, MPI_MAX, "MPI_Allreduce(MAX)");
}

Status MpiRankGroup::Barrier() { return Check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

}  // namespace xpuperf::collectives

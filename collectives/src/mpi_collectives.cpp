#include "xpuperf/collectives/mpi_collectives.h"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "mpi_error.h"

namespace xpuperf::collectives {
namespace {

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? int64_t{pages} * page_size : 0;
}

}  // namespace

Result<std::unique_ptr<MpiSession>> MpiSession::Start() {
  std::unique_ptr<MpiSession> session(new MpiSession());
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
      return MakeError(ErrorCode::kUnavailable, "MPI_Init failed");
    }
    session->finalize_ = true;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  XPUPERF_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &session->rank_));
  XPUPERF_MPI(MPI_Comm_size(MPI_COMM_WORLD, &session->ranks_));
  MPI_Comm local;
  XPUPERF_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  MPI_Comm_rank(local, &session->local_rank_);
  MPI_Comm_size(local, &session->local_ranks_);
  MPI_Comm_free(&local);
  const int leader = session->local_rank_ == 0 ? 1 : 0;
  XPUPERF_MPI(MPI_Allreduce(&leader, &session->hosts_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  session->library_ = std::string(version, static_cast<size_t>(std::max(length, 0)));
  session->library_ = session->library_.substr(0, session->library_.find_first_of(",\n"));
  return session;
}

MpiSession::~MpiSession() {
  if (finalize_) MPI_Finalize();
}

int64_t MpiSession::MinOverRanks(int64_t value) const {
  int64_t min = value;
  MPI_Allreduce(&value, &min, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  return min;
}

int64_t MpiSession::FromRankZero(int64_t value) const {
  MPI_Bcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return value;
}

Status CheckBuffersFit(const MpiSession& mpi, const std::vector<CollectiveOp>& ops,
                       const std::vector<int64_t>& sizes, DataType dtype) {
  const int type_size = DataTypeSize(dtype);
  const int64_t memory = PhysicalMemoryBytes();
  std::string problem;
  for (CollectiveOp op : ops) {
    for (int64_t bytes : sizes) {
      XPUPERF_ASSIGN_OR_RETURN(const CollectiveShape shape,
                               ShapeFor(op, bytes, mpi.ranks(), type_size));
      // Out of place: send and receive buffers; in place one of the larger size, run after.
      const int64_t per_rank = (shape.send_elements + shape.recv_elements) * int64_t{type_size};
      if (shape.count > INT_MAX) {
        problem = fmt::format(
            "{} of {} bytes needs {} elements per call, more than MPI's int "
            "count allows",
            CollectiveName(op), bytes, shape.count);
      } else if (memory > 0 && per_rank > (memory / 2) / mpi.local_ranks()) {
        problem = fmt::format(
            "{} of {} bytes needs {} MiB of buffers on each of the {} ranks of "
            "this host, more than half of its {} MiB of memory",
            CollectiveName(op), bytes, per_rank >> 20, mpi.local_ranks(), memory >> 20);
      }
      if (!problem.empty()) break;
    }
    if (!problem.empty()) break;
  }
  // Every rank must take the same branch, so the verdict is agreed on.
  if (mpi.MinOverRanks(problem.empty() ? 1 : 0) == 1) return Status::Ok();
  if (problem.empty()) problem = "the buffers do not fit in the memory of another host";
  return MakeError(ErrorCode::kInvalidArgument, problem);
}

Result<CollectiveResult> RunCollective(const MpiSession& mpi, CollectiveOp op, int64_t bytes,
                                       const TimingOptions& options) {
  // float, sum; broadcast in place (MPI_Bcast's one buffer).
  CollectiveVariant variant;
  variant.in_place = op == CollectiveOp::kBroadcast;
  return RunCollective(mpi, op, bytes, options, variant);
}

}  // namespace xpuperf::collectives

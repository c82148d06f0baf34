#include "xpuperf/collectives/mpi_messages.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "mpi_error.h"
#include "xpuperf/core/cancellation.h"

namespace xpuperf::collectives {
namespace {

// The messages of this file, apart from others: a size, the receiver's "ready", the bytes.
constexpr int kSizeTag = 2026;
constexpr int kReadyTag = 2027;
constexpr int kTag = 2028;
constexpr int64_t kPieceBytes = int64_t{1} << 30;  // fits an int count

// Waits for `request` without spinning (see the header); cancels it on SIGINT/SIGTERM.
Status Wait(MPI_Request* request, const char* call) {
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int done = 0;
    if (int code = MPI_Test(request, &done, MPI_STATUS_IGNORE); code != MPI_SUCCESS) {
      return MpiError(call, code);
    }
    if (done) return Status::Ok();
    if (Status cancelled = CheckCancelled(); !cancelled.ok()) {
      // The peers get the same signal from mpirun; the request is left to MPI's teardown.
      return cancelled;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

// A small message (one eager send), waited for without spinning.
Status SendSmall(int to, int tag, const void* data, int size) {
  MPI_Request request;
  XPUPERF_MPI(MPI_Isend(data, size, MPI_BYTE, to, tag, MPI_COMM_WORLD, &request));
  return Wait(&request, "MPI_Isend");
}
Status ReceiveSmall(int from, int tag, void* data, int size) {
  MPI_Request request;
  XPUPERF_MPI(MPI_Irecv(data, size, MPI_BYTE, from, tag, MPI_COMM_WORLD, &request));
  return Wait(&request, "MPI_Irecv");
}

// The bytes themselves, once both sides are ready: blocking calls, because a large message
// moves in many fragments and each needs both sides to call into MPI (sleeping between tests
// stretched a 30 MB transfer to seconds).
Status SendPieces(int to, const char* data, int64_t size) {
  for (int64_t at = 0; at < size; at += kPieceBytes) {
    const int count = static_cast<int>(std::min(kPieceBytes, size - at));
    XPUPERF_MPI(MPI_Send(data + at, count, MPI_BYTE, to, kTag, MPI_COMM_WORLD));
  }
  return Status::Ok();
}

Status ReceivePieces(int from, char* data, int64_t size) {
  for (int64_t at = 0; at < size; at += kPieceBytes) {
    const int count = static_cast<int>(std::min(kPieceBytes, size - at));
    XPUPERF_MPI(
        MPI_Recv(data + at, count, MPI_BYTE, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  return Status::Ok();
}

Status BroadcastPieces(char* data, int64_t size) {
  for (int64_t at = 0; at < size; at += kPieceBytes) {
    const int count = static_cast<int>(std::min(kPieceBytes, size - at));
    MPI_Request request;
    XPUPERF_MPI(MPI_Ibcast(data + at, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request));
    XPUPERF_RETURN_IF_ERROR(Wait(&request, "MPI_Ibcast"));
  }
  return Status::Ok();
}

}  // namespace

Status SendBytes(const MpiSession& mpi, int to, std::string_view bytes) {
  if (to < 0 || to >= mpi.ranks() || to == mpi.rank()) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("SendBytes to rank {}", to));
  }
  // The size, then wait (sleeping) until the receiver is ready, then the bytes.
  const auto size = static_cast<int64_t>(bytes.size());
  XPUPERF_RETURN_IF_ERROR(SendSmall(to, kSizeTag, &size, sizeof(size)));
  char ready = 0;
  XPUPERF_RETURN_IF_ERROR(ReceiveSmall(to, kReadyTag, &ready, 1));
  return SendPieces(to, bytes.data(), size);
}

Result<std::string> ReceiveBytes(const MpiSession& mpi, int from) {
  if (from < 0 || from >= mpi.ranks() || from == mpi.rank()) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("ReceiveBytes from rank {}", from));
  }
  int64_t size = 0;
  XPUPERF_RETURN_IF_ERROR(ReceiveSmall(from, kSizeTag, &size, sizeof(size)));
  if (size < 0) return MakeError(ErrorCode::kInternal, "ReceiveBytes: negative message size");
  std::string bytes(static_cast<size_t>(size), '\0');
  const char ready = 1;
  XPUPERF_RETURN_IF_ERROR(SendSmall(from, kReadyTag, &ready, 1));
  XPUPERF_RETURN_IF_ERROR(ReceivePieces(from, bytes.data(), size));
  return bytes;
}

Result<std::string> BroadcastFromRankZero(const MpiSession& mpi, std::string_view bytes) {
  int64_t size = mpi.rank() == 0 ? static_cast<int64_t>(bytes.size()) : 0;
  XPUPERF_RETURN_IF_ERROR(BroadcastPieces(reinterpret_cast<char*>(&size), sizeof(size)));
  if (size < 0) return MakeError(ErrorCode::kInternal, "broadcast: negative message size");
  std::string out = mpi.rank() == 0 ? std::string(bytes) : std::string(size, '\0');
  XPUPERF_RETURN_IF_ERROR(BroadcastPieces(out.data(), size));
  return out;
}

Result<int64_t> MinimumOverRanks(const MpiSession& mpi, int64_t value) {
  (void)mpi;
  int64_t out = value;
  MPI_Request request;
  XPUPERF_MPI(MPI_Iallreduce(&value, &out, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD, &request));
  XPUPERF_RETURN_IF_ERROR(Wait(&request, "MPI_Iallreduce"));
  return out;
}

}  // namespace xpuperf::collectives

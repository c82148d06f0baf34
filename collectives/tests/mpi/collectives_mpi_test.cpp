// Every collective on every rank of MPI_COMM_WORLD (ctest runs it on 4 ranks through mpirun):
// sizes that split evenly, unevenly and below one element per rank, each verified element by
// element on every rank. Exit 0 when all pass.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>

#include "xpuperf/collectives/mpi_collectives.h"

namespace xpuperf::collectives {
namespace {

int RunAll() {
  Result<std::unique_ptr<MpiSession>> started = MpiSession::Start();
  if (!started.ok()) {
    std::fprintf(stderr, "FAIL: %s\n", started.error().message.c_str());
    return 1;
  }
  const MpiSession& mpi = **started;
  int failures = 0;
  const auto fail = [&](const std::string& what) {
    if (mpi.rank() == 0) std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  };
  if (mpi.ranks() < 2) fail(fmt::format("needs at least 2 ranks, got {}", mpi.ranks()));
  if (mpi.hosts() != 1) fail(fmt::format("expected 1 host, got {}", mpi.hosts()));
  TimingOptions timing;
  timing.warmup_iterations = 1;
  timing.iterations = 3;
  timing.samples = 2;
  timing.check_every_sample = true;
  const int64_t sizes[] = {4, 8, 100, 4096, (int64_t{1} << 20) + 12, int64_t{4} << 20};
  for (CollectiveOp op : AllCollectives()) {
    for (int64_t bytes : sizes) {
      Result<CollectiveResult> result = RunCollective(mpi, op, bytes, timing);
      const std::string label = fmt::format("{} {} bytes", CollectiveName(op), bytes);
      if (!result.ok()) {
        fail(label + ": " + result.error().message);
        continue;
      }
      if (mpi.rank() != 0) continue;
      if (result->wrong != 0) fail(fmt::format("{}: {} wrong elements", label, result->wrong));
      if (result->seconds_per_operation.size() != 2) fail(label + ": expected 2 samples");
      for (double seconds : result->seconds_per_operation) {
        if (!(seconds > 0)) fail(label + ": a sample time is not positive");
      }
      std::printf("ok   %-15s %10lld bytes (%lld moved), count %lld, %d ranks\n",
                  std::string(CollectiveName(op)).c_str(), static_cast<long long>(bytes),
                  static_cast<long long>(result->shape.bytes),
                  static_cast<long long>(result->shape.count), mpi.ranks());
    }
  }
  // Every datatype, every reduction and both placements (nccl-tests' -d, -o and its two
  // columns): verified within each type's rounding; broadcast out of place is refused (MPI_Bcast
  // has one buffer).
  for (DataType dtype : AllDataTypes()) {
    for (ReduceOp redop : AllReduceOps()) {
      for (const bool in_place : {false, true}) {
        CollectiveVariant variant{dtype, redop, in_place};
        for (CollectiveOp op : AllCollectives()) {
          // Reductions vary with the op; the others only with the type and the placement.
          if (!Reduces(op) && redop != ReduceOp::kSum) continue;
          const int64_t bytes = (int64_t{1} << 16) + 6;
          Result<CollectiveResult> result = RunCollective(mpi, op, bytes, timing, variant);
          const std::string label =
              fmt::format("{} {} {} {}", CollectiveName(op), DataTypeName(dtype),
                          ReduceOpName(redop), in_place ? "in place" : "out of place");
          if (op == CollectiveOp::kBroadcast && !in_place) {
            if (result.ok() || result.error().code != ErrorCode::kUnsupported) {
              fail(label + ": expected unsupported");
            }
            continue;
          }
          if (!result.ok()) {
            fail(label + ": " + result.error().message);
            continue;
          }
          if (mpi.rank() != 0) continue;
          if (result->wrong != 0) fail(fmt::format("{}: {} wrong elements", label, result->wrong));
          if (result->seconds_per_operation.size() != 2) fail(label + ": expected 2 samples");
        }
      }
    }
  }
  if (mpi.rank() == 0) std::printf("ok   every datatype, reduction and placement\n");
  // Every rank exits with rank 0's verdict, so mpirun reports one outcome.
  const int verdict = static_cast<int>(mpi.FromRankZero(failures == 0 ? 0 : 1));
  if (mpi.rank() == 0) std::printf(verdict == 0 ? "PASS\n" : "FAILED\n");
  return verdict;
}

}  // namespace
}  // namespace xpuperf::collectives

int main() { return xpuperf::collectives::RunAll(); }

// The collectives xpuperf measures over MPI and the nccl-tests conventions that make their
// bandwidths comparable: the byte count S of each collective, the element counts behind it and the
// bus-bandwidth factor, and what one timed run of a collective returns. Pure functions, no MPI:
// compiled in every build (library xpuperf::collective_formulas), for the MPI collectives and the
// NCCL ones of cuda_bench alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

enum class CollectiveOp {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kSendRecv
};

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv".
std::string_view CollectiveName(CollectiveOp op);
// kInvalidArgument naming the known collectives for anything else.
Result<CollectiveOp> ParseCollective(std::string_view name);
// Every collective, in the order above.
const std::vector<CollectiveOp>& AllCollectives();
// "all_reduce, all_gather, ...", for help and error messages.
std::string CollectiveNames();

// busbw = algbw x factor (nccl-tests): all_reduce 2(n-1)/n; all_gather, reduce_scatter and
// all_to_all (n-1)/n; broadcast and send_recv (ring ppermute) 1.
double BusBandwidthFactor(CollectiveOp op, int ranks);

// algbw in bytes per second: S / t. 0 when seconds is not positive.
double AlgorithmBandwidth(double bytes, double seconds);

// The buffers of one collective for a requested size S (nccl-tests conventions):
//   all_reduce      S = count x type size, the buffer every rank reduces
//   all_gather      S = total output = per-rank block x n x type size
//   reduce_scatter  S = total input  = per-rank block x n x type size
//   all_to_all      S = per-rank buffer = per-peer block x n x type size
//   broadcast       S = count x type size
//   send_recv       S = count x type size, sent by every rank to the next one in a ring
// S is rounded down to whole elements (whole blocks of n where the collective splits the buffer),
// with at least one element per rank.
struct CollectiveShape {
  int64_t bytes = 0;          // S actually moved, after rounding
  int64_t count = 0;          // nccl-tests' count column: elements per rank's operand (block)
  int64_t send_elements = 0;  // per rank
  int64_t recv_elements = 0;  // per rank (broadcast works in place in the receive buffer)
  int64_t block = 0;          // elements of one rank's block (all_gather, reduce_scatter,
                              // all_to_all per peer); equals count
};

// kInvalidArgument for bytes < 1, ranks < 1 or type_size < 1.
Result<CollectiveShape> ShapeFor(CollectiveOp op, int64_t bytes, int ranks, int type_size);

// How one size of one collective is timed (nccl-tests): warm-up operations, then per sample
// `iterations` back-to-back operations; the sample's time is the slowest rank's.
struct TimingOptions {
  int warmup_iterations = 5;        // untimed operations before the samples
  int iterations = 20;              // operations per sample
  int samples = 5;                  // timed samples
  bool check_every_sample = false;  // verify after each sample too, not only once up front
};

struct CollectiveResult {
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveShape shape;
  int ranks = 0;
  std::vector<double> seconds_per_operation;  // per sample, max over ranks; on rank 0 only
  int64_t wrong = 0;  // elements that differ from the expected result, summed over the ranks
                      // and checks; on rank 0 only
};

}  // namespace xpuperf::collectives

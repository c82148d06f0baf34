// `xpuperf bench network`: collectives with nccl-tests' options and table, over MPI on the CPUs
// (--backend mpi) or over NCCL with one GPU per rank (--backend nccl). Under mpirun every rank runs
// it; with --ranks N outside mpirun it starts mpirun on this host itself.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace xpuperf::bench_commands {

struct BenchNetworkOptions {
  std::string begin = "8";       // -b, bytes with optional K/M/G
  std::string end = "64M";       // -e
  int64_t factor = 0;            // -f multiplication factor; 0 = unset (2 unless -i is given)
  std::string increment;         // -i additive step; empty = unset
  std::vector<std::string> ops;  // collectives; empty = all
  int ranks = 0;                 // > 0: start mpirun with this many ranks on this host
  int iterations = 20;           // operations per sample
  int warmup = 5;                // untimed operations per size
  int samples = 5;               // timed samples per size
  std::string out;               // result directory; empty = results/<run id>
  bool check = false;            // verify after every sample too (always once per size)
  std::string backend = "mpi";   // "mpi": MPI on the CPUs; "nccl": NCCL, one GPU per rank
  std::string dtype = "float";   // -d: float, double, half, bfloat16, int32 (element_type.h)
  std::string redop = "sum";     // -o: sum, prod, min, max, avg (all_reduce, reduce_scatter)
};

// Exit code 0 ok (also when --backend nccl is skipped: "skipped: unsupported: no CUDA driver" on
// stdout, no result directory), 1 failure (including any wrong element), 2 usage error.
int RunBenchNetwork(const BenchNetworkOptions& options, std::ostream& out, std::ostream& err);

// The `bench network ...` arguments each rank gets from a --ranks launch: the options without
// --ranks.
std::vector<std::string> RankArguments(const BenchNetworkOptions& options);

}  // namespace xpuperf::bench_commands

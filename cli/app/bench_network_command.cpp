// `bench network`: MPI or NCCL collectives with nccl-tests' size options.
#include "xpuperf/bench_commands/bench_network_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddBenchNetworkCommand(CLI::App& bench, CommandActions& actions) {
  auto options = std::make_shared<bench_commands::BenchNetworkOptions>();
  bench_commands::BenchNetworkOptions& network = *options;
  CLI::App* command = bench.add_subcommand(
      "network",
      "Collectives over MPI ranks: latency, algbw and busbw per size, verified (mpirun -np N "
      "xpuperf bench network, or --ranks N on this host); --backend nccl for one GPU per rank");
  command->add_option("-b,--begin", network.begin, "Smallest size, bytes (K, M, G suffixes)")
      ->capture_default_str();
  command->add_option("-e,--end", network.end, "Largest size, bytes (K, M, G suffixes)")
      ->capture_default_str();
  command->add_option("-f,--factor", network.factor, "Multiply the size by this (default 2)");
  command->add_option("-i,--increment", network.increment, "Add this to the size instead of -f");
  command->add_option("--op", network.ops,
                      "Collective (repeatable): all_reduce, all_gather, reduce_scatter, "
                      "all_to_all, broadcast, send_recv; default all");
  command
      ->add_option("-d,--datatype", network.dtype,
                   "Element type: float, double, half, bfloat16, int32 (or int)")
      ->capture_default_str();
  command
      ->add_option("-o,--redop", network.redop,
                   "Reduction of all_reduce and reduce_scatter: sum, prod, min, max, avg")
      ->capture_default_str();
  command->add_option("--ranks", network.ranks,
                      "Start mpirun with N ranks on this host (outside mpirun only)");
  command->add_option("--iters,-n", network.iterations, "Operations per sample")
      ->capture_default_str();
  command->add_option("--warmup,-w", network.warmup, "Untimed operations per size")
      ->capture_default_str();
  command->add_option("--samples", network.samples, "Timed samples per size")
      ->capture_default_str();
  command->add_option("--out", network.out, "Result directory (default results/<run id>)");
  command
      ->add_option("--backend", network.backend,
                   "mpi: MPI collectives on the CPUs; nccl: NCCL collectives, one GPU per "
                   "rank (GPU = local rank mod GPU count)")
      ->capture_default_str();
  command->add_flag("--check,-c", network.check,
                    "Verify after every sample too (the result is always verified once per size)");
  actions.push_back({command, [options] {
                       return bench_commands::RunBenchNetwork(*options, std::cout, std::cerr);
                     }});
}

}  // namespace xpuperf::cli

// `bench` with list, run and one subcommand per component; check and network add their own.
#include "xpuperf/bench_commands/bench_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "xpuperf/bench_commands/bench_compile_command.h"

namespace xpuperf::cli {

void AddBenchCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<bench_commands::BenchOptions>();
  bench_commands::BenchOptions& bench = *options;
  CLI::App* command = app.add_subcommand(
      "bench", "Microbenchmarks: compute, memory, host transfer, network, attention");
  command->require_subcommand(1);
  CLI::App* list = command->add_subcommand("list", "List the benchmarks and suites");
  const auto add_run_options = [&bench](CLI::App* sub) {
    sub->add_option("--suite", bench.suite, "Suite: quick, standard, full or a .yaml file")
        ->capture_default_str();
    sub->add_option("--benchmark,-b", bench.benchmarks, "Only this benchmark (repeatable)");
    sub->add_option("--out", bench.out, "Result directory (default results/<run id>)");
    sub->add_option("--threads", bench.threads,
                    "Threads, 1..4 x the allowed CPUs (default: every allowed CPU)");
    sub->add_option("--samples", bench.samples,
                    "Samples per point, 1..100000 (overrides the suite)");
    sub->add_option("--min-sample-seconds", bench.min_sample_seconds,
                    "Shortest sample, 1e-06..1 seconds (overrides the suite)");
    sub->add_option("--target-cv", bench.target_cv,
                    "Take more samples while their CV is above this fraction, 0.001..10 "
                    "(overrides the suite; default 0.03)");
    sub->add_option("--max-point-seconds", bench.max_point_seconds,
                    "Adaptive sampling's cap per point, 0..600 seconds (overrides the suite; "
                    "default 2)");
    sub->add_option("--point-time-cap", bench.point_time_cap,
                    "Give up a point whose timed runs would last longer, 0..86400 seconds, 0 = "
                    "none (overrides the suite; default 300)");
    sub->add_option("--pjrt-plugin", bench.pjrt_plugin,
                    "PJRT plugin (.so) for the pjrt_* points that name none (before "
                    "$XPUPERF_PJRT_PLUGIN and the installed plugins)");
  };
  CLI::App* run = command->add_subcommand("run", "Run a suite and write the results");
  run->add_option("--resume", bench.resume,
                  "Finish a run that a stop request ended (its result directory, marked "
                  "partial), with the options it was started with");
  run->add_option("--only", bench.only,
                  "Only these components: compute, memory, host_transfer, attention (repeatable)");
  add_run_options(run);
  std::vector<CLI::App*> subcommands = {list, run};
  for (const char* component : {"compute", "memory", "host_transfer", "attention"}) {
    CLI::App* sub = command->add_subcommand(
        component, std::string("Run the suite's ") + component + " benchmarks");
    add_run_options(sub);
    subcommands.push_back(sub);
  }
  for (CLI::App* sub : subcommands) {
    actions.push_back({sub, [options, sub] {
                         options->action = sub->get_name();
                         return bench_commands::RunBench(*options, std::cout, std::cerr);
                       }});
  }
  auto compile = std::make_shared<bench_commands::BenchCompileOptions>();
  CLI::App* compile_check = command->add_subcommand(
      "compile-check",
      "Compile the PJRT benchmarks' programs for a named topology without its devices (libtpu: "
      "a TPU slice on a host with no TPU); nothing runs");
  compile_check->add_option("--topology", compile->topology, "Topology: v5e:2x2, v4:2x2x1, ...")
      ->required();
  compile_check
      ->add_option("--pjrt-plugin", compile->plugin,
                   "PJRT plugin (.so), or tpu, cuda, cpu for an installed one")
      ->capture_default_str();
  compile_check->add_flag("--json", compile->json, "The report as JSON");
  actions.push_back({compile_check, [compile] {
                       return bench_commands::RunBenchCompileCheck(*compile, std::cout, std::cerr);
                     }});
  AddBenchCheckCommand(*command, actions);
  AddBenchNetworkCommand(*command, actions);
}

}  // namespace xpuperf::cli

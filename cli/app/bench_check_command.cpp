// `bench check RESULTS_DIR --spec FILE|auto`: achieved / spec per component.
#include "xpuperf/analysis/bench_check_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddBenchCheckCommand(CLI::App& bench, CommandActions& actions) {
  auto options = std::make_shared<analysis::BenchCheckOptions>();
  analysis::BenchCheckOptions& check = *options;
  CLI::App* command = bench.add_subcommand(
      "check",
      "Compare a run's best figures with a spec sheet; exit 1 when a component misses its "
      "threshold");
  command->add_option("results", check.results, "Result directory of xpuperf bench run")
      ->required();
  command
      ->add_option("--spec", check.spec,
                   "Spec sheet .yaml, or auto: the shipped sheet of the run's device, or the "
                   "sheet computed for this machine's CPU")
      ->capture_default_str();
  command->add_option("--compute", check.thresholds.compute, "Compute threshold, % of spec")
      ->capture_default_str();
  command->add_option("--memory", check.thresholds.memory, "Memory threshold, % of spec")
      ->capture_default_str();
  command->add_option("--network", check.thresholds.network, "Network threshold, % of spec")
      ->capture_default_str();
  command
      ->add_option("--host-transfer", check.thresholds.host_transfer,
                   "Host transfer threshold, % of spec")
      ->capture_default_str();
  command->add_flag("--json", check.json, "JSON output");
  command->add_option(
      "--export", check.export_path,
      "Also write the check as JSON to FILE (atomically) for `serve --bench-check`");
  command->add_option("--root", check.root, "System root to read (recorded trees)")
      ->group("")  // hidden: for tests
      ->check(CLI::ExistingDirectory);
  actions.push_back(
      {command, [options] { return analysis::RunBenchCheck(*options, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

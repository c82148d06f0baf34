// `compare OLD NEW`: two result directories (median change per metric and its significance) or
// two traces (ops added/removed, count and time changes).
#include "xpuperf/bench_commands/compare_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddCompareCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<bench_commands::CompareOptions>();
  bench_commands::CompareOptions& compare = *options;
  CLI::App* command = app.add_subcommand(
      "compare",
      "Compare two result directories (median change per metric, Mann-Whitney U test on the "
      "samples, regressions flagged) or two traces (ops added/removed, count and time changes)");
  command->add_option("old", compare.old_path, "Result directory (or trace) before the change")
      ->required();
  command->add_option("new", compare.new_path, "Result directory (or trace) after the change")
      ->required();
  command->add_option("--fail-on-regression", compare.fail_on_regression_percent,
                      "Exit 1 when a regression outside the noise is larger than PCT %");
  command->add_option("--alpha", compare.alpha, "Significance level of the test")
      ->capture_default_str();
  command->add_flag("--json", compare.json, "JSON output");
  actions.push_back(
      {command, [options] { return bench_commands::RunCompare(*options, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

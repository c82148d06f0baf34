// `diag -r 1|2|3`: active diagnostics.
#include "xpuperf/diag/diag_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddDiagCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<diag::DiagOptions>();
  diag::DiagOptions& diag = *options;
  CLI::App* command = app.add_subcommand(
      "diag",
      "Active diagnostics: -r 1 deployment and health (seconds), -r 2 adds a memory pattern "
      "test and a performance gate (about a minute), -r 3 adds stress under watch (--duration)");
  command->add_option("-r,--run", diag.level, "Level: 1, 2 or 3")->capture_default_str();
  command->add_option("--duration", diag.duration_seconds, "Level 3's stress, seconds")
      ->capture_default_str();
  command->add_option("--expect", diag.expect,
                      "Accelerators this node must have; fewer is a failure (0..4096)");
  command->add_option("--memory-mib", diag.memory_mib, "Host memory per pattern pass, MiB")
      ->capture_default_str();
  command->add_option("--out", diag.out,
                      "Result directory (diag.json, bench/); default results/diag-<run id>");
  command->add_flag("--json", diag.json, "JSON output");
  command->add_flag("--resume", diag.resume,
                    "Slurm: once every test passes, resume this node if xpuperf drained it");
  command->add_option("--node", diag.node, "Slurm NodeName (default: the short host name)");
  command->add_option("--scontrol", diag.scontrol, "The scontrol program")->capture_default_str();
  AddCommonOptions(command, diag.common);
  actions.push_back({command, [options] { return diag::RunDiag(*options, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

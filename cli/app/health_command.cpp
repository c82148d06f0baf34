// `health`: one verdict per device and subsystem.
#include "xpuperf/health/health_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddHealthCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<health::HealthCommandOptions>();
  health::HealthCommandOptions& health = *options;
  CLI::App* command = app.add_subcommand(
      "health",
      "Health verdicts per device and subsystem (PCIe, memory, thermal, power, interconnect, "
      "driver, clocks, processor); exit 1 when one fails");
  command->add_option("--device,-d", health.devices, "Device id (repeatable); default all");
  command->add_option("--expect", health.expect,
                      "Accelerators this node must have; fewer is a failure (0..4096)");
  command->add_flag("--json", health.json, "JSON output");
  command
      ->add_option("--window", health.window_seconds,
                   "Sampling window for rates (duty cycle), seconds")
      ->capture_default_str();
  command
      ->add_option("--deadline", health.deadline_seconds,
                   "Longest wait for the backends' answer, seconds (a hung device call)")
      ->capture_default_str();
  command->add_flag("--drain", health.drain,
                    "Slurm: drain this node when a verdict fails and needs it out of service");
  command->add_flag("--resume", health.resume,
                    "Slurm, with --drain: resume a node xpuperf drained once every verdict passes");
  command->add_option("--node", health.node, "Slurm NodeName (default: the short host name)");
  command->add_option("--scontrol", health.scontrol, "The scontrol program")->capture_default_str();
  command->add_flag("--npd", health.npd,
                    "node-problem-detector custom plugin: one line, exit 0 ok / 1 problem / 2 "
                    "unknown");
  AddCommonOptions(command, health.common);
  actions.push_back(
      {command, [options] { return health::RunHealth(*options, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

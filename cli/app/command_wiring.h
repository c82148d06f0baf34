// How each command plugs into the `xpuperf` command line. Only cli/app/ includes CLI11: every file
// here adds one command's options to the parser, bound straight into the options struct of the
// component that owns the command (telemetry, analyze, serve, record, ...; docs/ARCHITECTURE.md,
// "Where each command lives"), and says what to run when it was given.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "xpuperf/telemetry/commands.h"

namespace xpuperf::cli {

using telemetry::CommonOptions;

// A command that was parsed runs its action, which returns the process exit code.
struct CommandAction {
  CLI::App* command = nullptr;
  std::function<int()> run;
  // A daemon (serve) stops on SIGINT/SIGTERM as its normal end: its own exit code stands instead
  // of 130/143 (docs/POLICIES.md).
  bool signal_is_normal_stop = false;
};

// Every Add* function appends its command(s) to `actions`. A subcommand must be added after its
// parent: main runs the last parsed entry, the most specific one.
using CommandActions = std::vector<CommandAction>;

void AddCommonOptions(CLI::App* command, CommonOptions& common);

void AddDevicesCommand(CLI::App& app, CommandActions& actions);
void AddMetricsCommand(CLI::App& app, CommandActions& actions);
void AddTopCommand(CLI::App& app, CommandActions& actions);
void AddHealthCommand(CLI::App& app, CommandActions& actions);  // health_command.cpp
void AddDiagCommand(CLI::App& app, CommandActions& actions);    // diag_command.cpp
// `bench` and its run/list/component subcommands; calls the two below for its other subcommands.
void AddBenchCommand(CLI::App& app, CommandActions& actions);
void AddBenchCheckCommand(CLI::App& bench, CommandActions& actions);
void AddBenchNetworkCommand(CLI::App& bench, CommandActions& actions);
void AddCompareCommand(CLI::App& app, CommandActions& actions);
void AddRooflineCommands(CLI::App& app, CommandActions& actions);  // roofline and diagnose
void AddAnalyzeCommand(CLI::App& app, CommandActions& actions);
void AddAlertCommand(CLI::App& app, CommandActions& actions);  // alert check/test/list
void AddServeCommand(CLI::App& app, CommandActions& actions);  // serve_command.cpp
void AddRecordCommand(CLI::App& app, CommandActions& actions);
void AddAgentCommand(CLI::App& app, CommandActions& actions);    // agent_command.cpp
void AddCaptureCommand(CLI::App& app, CommandActions& actions);  // agent_command.cpp
// A command of a part this build leaves out: any arguments, exit 1 with "unsupported: <reason>".
void AddUnavailableCommand(CLI::App& app, CommandActions& actions, const std::string& name,
                           const std::string& description, const std::string& reason);

}  // namespace xpuperf::cli

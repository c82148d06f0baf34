// `record [--rate HZ] [--out DIR] [--backend ...] (-- CMD [ARGS...] | --pid PID | --duration S)`.
#include "xpuperf/record/record_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddRecordCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<record::RecordCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "record",
      "Record a job's energy, power, memory and utilisation over time: xpuperf record -- CMD");
  command->add_option("--rate", options->rate_hz, "Samples per second")->capture_default_str();
  command->add_option("--out,-o", options->out,
                      "Output directory (default xpuperf-record-<date-time>)");
  command->add_option("--pid", options->pid, "Attach to a running process instead of a command");
  command->add_option("--duration", options->duration_s,
                      "Stop after this many seconds (with --pid or system-wide)");
  command->add_flag("--json", options->json, "Also print the summary as JSON on stdout");
  command->add_flag("!--no-html", options->html, "Do not write report.html");
  command->add_flag("!--no-ipmi", options->ipmi,
                    "Do not read the BMC's power through ipmitool (DCMI, else SDR sensors)");
  command
      ->add_option("--ipmi-period", options->ipmi_period_s,
                   "Seconds between two ipmitool calls (1 to 3600)")
      ->capture_default_str();
  command->add_option("--progress", options->progress_s,
                      "Seconds between progress lines on stderr, 0 for none (default 10 on a "
                      "terminal, else 60)");
  AddCommonOptions(command, options->common);
  command->add_option("command", options->command, "The job and its arguments, after --");
  actions.push_back(
      {command, [options] { return record::RunRecord(*options, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

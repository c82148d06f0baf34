// `alert check FILE...`, `alert test FILE...`, `alert list`: the built-in rule engine's tools.
#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "xpuperf/alerts/alert_commands.h"

namespace xpuperf::cli {

void AddAlertCommand(CLI::App& app, CommandActions& actions) {
  CLI::App* alert = app.add_subcommand(
      "alert",
      "Alert rules: validate rule files, run promtool-format rule tests with the "
      "built-in engine, list the alerts of `serve --rules`");
  alert->require_subcommand(1);

  auto check = std::make_shared<alerts::AlertCheckOptions>();
  CLI::App* check_command = alert->add_subcommand(
      "check",
      "Validate Prometheus rule files for the built-in engine (PromQL subset, "
      "templates); the first problem of each file with file:line:column");
  check_command->add_option("files", check->files, "Rule files")->required();
  actions.push_back(
      {check_command, [check] { return alerts::RunAlertCheck(*check, std::cout, std::cerr); }});

  auto test = std::make_shared<alerts::AlertTestOptions>();
  CLI::App* test_command = alert->add_subcommand(
      "test", "Run `promtool test rules` test files with the built-in engine");
  test_command->add_option("files", test->files, "Test files")->required();
  test_command->add_option("--timeline-out", test->timeline_out,
                           "Write the engine's alert timeline at every evaluation step as a "
                           "promtool test file (for `promtool test rules`)");
  actions.push_back(
      {test_command, [test] { return alerts::RunAlertTest(*test, std::cout, std::cerr); }});

  auto list = std::make_shared<alerts::AlertListOptions>();
  CLI::App* list_command =
      alert->add_subcommand("list",
                            "Show pending, firing and resolved alerts and the receivers' "
                            "delivery counts from a `serve --rules` state file");
  list_command->add_option("--state", list->state_file, "Alert state file")->capture_default_str();
  list_command->add_flag("--json", list->json, "The state file's JSON");
  actions.push_back(
      {list_command, [list] { return alerts::RunAlertList(*list, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

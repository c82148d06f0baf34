// `devices`, `metrics` and `top`.
#include <iostream>
#include <memory>

#include "command_wiring.h"

namespace xpuperf::cli {

void AddCommonOptions(CLI::App* command, CommonOptions& common) {
  command->add_option("--backend", common.backends, "Only these backends (cpu, ...); repeatable");
  command->add_option("--root", common.root, "System root to read (recorded trees)")
      ->group("")  // hidden: for tests and offline analysis of recorded systems
      ->check(CLI::ExistingDirectory);
}

void AddDevicesCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<telemetry::DevicesOptions>();
  CLI::App* command = app.add_subcommand("devices", "List the devices of this machine");
  command->add_flag("--json", options->json, "JSON output");
  command->add_option("--pjrt-plugin", options->pjrt_plugin,
                      "Also probe this PJRT plugin (libtpu.so, a CUDA or CPU plugin)");
  command->add_flag("--no-pjrt{false}", options->pjrt, "Do not look for PJRT plugins");
  AddCommonOptions(command, options->common);
  actions.push_back(
      {command, [options] { return telemetry::RunDevices(*options, std::cout, std::cerr); }});
}

void AddMetricsCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<telemetry::MetricsOptions>();
  telemetry::MetricsOptions& metrics = *options;
  CLI::App* command =
      app.add_subcommand("metrics", "Read device metrics (one snapshot or --watch)");
  command->add_option("--metric,-m", metrics.metrics, "Metric name (repeatable); default all");
  command->add_option("--device,-d", metrics.devices, "Device id (repeatable); default all");
  command->add_flag("--list", metrics.list, "Print the metric catalog");
  command->add_flag("--tpu-sdk", metrics.tpu_sdk,
                    "Every metric libtpu's monitoring SDK lists, its values as libtpu gives them "
                    "and where xpuperf maps it (XPUPERF_TPU_SDK_PYTHON: the Python with libtpu)");
  command->add_flag("--json", metrics.json, "JSON output (JSON Lines with --watch)");
  command
      ->add_option("--format", metrics.format,
                   "table, json or csv (the header once, then one row per device, metric and time)")
      ->capture_default_str();
  command->add_flag("--watch,-w", metrics.watch, "Refresh until interrupted");
  command->add_option("--rate", metrics.rate_seconds, "Refresh period with --watch, seconds")
      ->capture_default_str();
  command->add_option("--count", metrics.count,
                      "With --watch: stop after N updates (1..1e9; default: until interrupted)");
  command
      ->add_option("--window", metrics.window_seconds,
                   "Sampling window for rates in a snapshot, seconds")
      ->capture_default_str();
  command->add_option("--pid", metrics.common.pids, "Report this process (repeatable)");
  AddCommonOptions(command, metrics.common);
  actions.push_back(
      {command, [options] { return telemetry::RunMetrics(*options, std::cout, std::cerr); }});
}

void AddTopCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<telemetry::TopOptions>();
  telemetry::TopOptions& top = *options;
  CLI::App* command = app.add_subcommand("top", "Live view of devices and processes (q quits)");
  command->add_option("--rate", top.rate_seconds, "Refresh period, seconds")->capture_default_str();
  command->add_option("--count", top.count, "Stop after N refreshes (1..1e9; default: until q)");
  command->add_flag("--plain", top.plain, "Plain refreshing table even on a terminal");
  command->add_option("--processes", top.processes, "Process rows in plain mode")
      ->capture_default_str();
  AddCommonOptions(command, top.common);
  actions.push_back(
      {command, [options] { return telemetry::RunTop(*options, std::cout, std::cerr); }});
}

}  // namespace xpuperf::cli

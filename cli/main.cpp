// The xpuperf command line. The only file that includes CLI11; commands live in the cli library.
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>

#include "xpuperf/cli/commands.h"
#include "xpuperf/core/version.h"

namespace {

void OnSignal(int) { xpuperf::cli::StopRequested().store(true); }

void AddCommon(CLI::App* command, xpuperf::cli::CommonOptions& common) {
  command->add_option("--backend", common.backends, "Only these backends (cpu, ...); repeatable");
  command->add_option("--root", common.root, "System root to read (recorded trees)")
      ->group("")  // hidden: for tests and offline analysis of recorded systems
      ->check(CLI::ExistingDirectory);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace xpuperf::cli;
  CLI::App app{
      "xpuperf: telemetry, microbenchmarks, roofline and trace analysis for CPUs, NVIDIA "
      "GPUs and Google TPUs",
      "xpuperf"};
  app.set_version_flag("--version", std::string("xpuperf ") + xpuperf::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  xpuperf devices                      devices of this machine\n"
      "  xpuperf devices --json               the same as JSON\n"
      "  xpuperf metrics                      one snapshot of every metric, tpu-info-like tables\n"
      "  xpuperf metrics --metric duty_cycle_percent --watch --rate 2\n"
      "  xpuperf metrics --list               the metric catalog\n"
      "  xpuperf metrics --pid 1234 --json    include a process's CPU and memory\n"
      "  xpuperf top                          live view; q quits\n"
      "  xpuperf bench run --suite quick      measure peak FP, GEMM, STREAM and caches\n"
      "  xpuperf bench list                   the benchmarks and suites\n"
      "Exit codes: 0 ok, 1 failure, 2 usage error.");

  DevicesOptions devices;
  CLI::App* devices_cmd = app.add_subcommand("devices", "List the devices of this machine");
  devices_cmd->add_flag("--json", devices.json, "JSON output");
  AddCommon(devices_cmd, devices.common);

  MetricsOptions metrics;
  CLI::App* metrics_cmd =
      app.add_subcommand("metrics", "Read device metrics (one snapshot or --watch)");
  metrics_cmd->add_option("--metric,-m", metrics.metrics, "Metric name (repeatable); default all");
  metrics_cmd->add_option("--device,-d", metrics.devices, "Device id (repeatable); default all");
  metrics_cmd->add_flag("--list", metrics.list, "Print the metric catalog");
  metrics_cmd->add_flag("--json", metrics.json, "JSON output (JSON Lines with --watch)");
  metrics_cmd->add_flag("--watch,-w", metrics.watch, "Refresh until interrupted");
  metrics_cmd->add_option("--rate", metrics.rate_seconds, "Refresh period with --watch, seconds")
      ->capture_default_str();
  metrics_cmd->add_option("--count", metrics.count, "With --watch: stop after N updates");
  metrics_cmd
      ->add_option("--window", metrics.window_seconds,
                   "Sampling window for rates in a snapshot, seconds")
      ->capture_default_str();
  metrics_cmd->add_option("--pid", metrics.common.pids, "Report this process (repeatable)");
  AddCommon(metrics_cmd, metrics.common);

  TopOptions top;
  CLI::App* top_cmd = app.add_subcommand("top", "Live view of devices and processes (q quits)");
  top_cmd->add_option("--rate", top.rate_seconds, "Refresh period, seconds")->capture_default_str();
  top_cmd->add_option("--count", top.count, "Stop after N refreshes");
  top_cmd->add_flag("--plain", top.plain, "Plain refreshing table even on a terminal");
  top_cmd->add_option("--processes", top.processes, "Process rows in plain mode")
      ->capture_default_str();
  AddCommon(top_cmd, top.common);

  BenchOptions bench;
  CLI::App* bench_cmd =
      app.add_subcommand("bench", "Microbenchmarks: peak FP, GEMM, STREAM, cache levels");
  bench_cmd->require_subcommand(1);
  bench_cmd->add_subcommand("list", "List the benchmarks and suites");
  const auto add_run_options = [&bench](CLI::App* command) {
    command->add_option("--suite", bench.suite, "Suite: quick, standard, full or a .yaml file")
        ->capture_default_str();
    command->add_option("--benchmark,-b", bench.benchmarks, "Only this benchmark (repeatable)");
    command->add_option("--out", bench.out, "Result directory (default results/<run id>)");
    command->add_option("--threads", bench.threads, "Threads (default: every allowed CPU)");
    command->add_option("--samples", bench.samples, "Samples per point (overrides the suite)");
    command->add_option("--min-sample-seconds", bench.min_sample_seconds,
                        "Shortest sample, seconds (overrides the suite)");
  };
  CLI::App* bench_run = bench_cmd->add_subcommand("run", "Run a suite and write the results");
  bench_run->add_option("--only", bench.only,
                        "Only these components: compute, memory (repeatable)");
  add_run_options(bench_run);
  for (const char* component : {"compute", "memory"}) {
    add_run_options(bench_cmd->add_subcommand(
        component, std::string("Run the suite's ") + component + " benchmarks"));
  }

  // CLI11 reports a mistyped command as "A subcommand is required"; name it instead.
  const std::string first = argc > 1 ? argv[1] : "";
  if (!first.empty() && first[0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
      known += (known.empty() ? "" : ", ") + command->get_name();
      found = found || command->get_name() == first;
    }
    if (!found) {
      std::cerr << "xpuperf: error: unknown command '" << first << "' (commands: " << known
                << "; see xpuperf --help)\n";
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "xpuperf: error: " << e.what() << " (see xpuperf --help)\n";
    return kExitUsage;
  }

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  if (devices_cmd->parsed()) return RunDevices(devices, std::cout, std::cerr);
  if (metrics_cmd->parsed()) return RunMetrics(metrics, std::cout, std::cerr);
  if (top_cmd->parsed()) return RunTop(top, std::cout, std::cerr);
  if (bench_cmd->parsed()) {
    for (const CLI::App* sub : bench_cmd->get_subcommands()) bench.action = sub->get_name();
    return RunBench(bench, std::cout, std::cerr);
  }
  return kExitUsage;
}

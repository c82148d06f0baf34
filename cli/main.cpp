// The xpuperf command line: the commands wired in cli/app/, run in the cli library.
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <string_view>

#include "app/command_wiring.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/core/version.h"
#include "xpuperf/pjrt/probe.h"
#include "xpuperf/render/terminal_escape.h"
#include "xpuperf/render/text_table.h"

#if XPUPERF_ANALYZE_FRONT
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "xpuperf/analyze/analyze.h"

// This `xpuperf` links only what `analyze` needs: the dynamic loader maps ~30 shared libraries
// instead of the ~80 of every command (gRPC, OpenSSL, protobuf, OpenBLAS, MPI ...), which was most
// of a small trace's wall time and memory (docs/PERFORMANCE.md). Every other command, --help and
// --version run in xpuperf-full, next to this binary, which replaces this process (execv: the
// same pid, arguments, signals and exit code).
namespace {

// The command word: the first argument that is not an option or the value of the one global
// option that takes a value.
std::string_view CommandWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--max-decompressed-bytes") {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;
    return arg;
  }
  return {};
}

[[noreturn]] void RunFullBinary(char** argv) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::string full =
      (error ? std::filesystem::path(argv[0]) : self).parent_path() / "xpuperf-full";
  ::execv(full.c_str(), argv);
  std::cerr << "xpuperf: error: cannot run " << full << ": " << std::strerror(errno)
            << " (every command but analyze runs from it: install it next to xpuperf)\n";
  std::_Exit(1);
}

}  // namespace
#endif

namespace {

int RunMain(int argc, char** argv) {
  using namespace xpuperf::cli;
  using xpuperf::kExitFailure;
  using xpuperf::kExitOk;
  using xpuperf::kExitUsage;
  namespace render = xpuperf::render;
  // Tables fit the terminal standard output is (whole tables into pipes and files).
  render::SetDefaultLineWidth(render::TerminalColumns());
#if XPUPERF_ANALYZE_FRONT
  // Under an MPI launcher analyze splits a directory over the processes, which needs MPI: that
  // lives in xpuperf-full only.
  if (CommandWord(argc, argv) != "analyze") RunFullBinary(argv);
  if (auto launch = xpuperf::analyze::DetectMpiLaunch(); launch && launch->size != 1)
    RunFullBinary(argv);
#endif
  // The child of `devices`' PJRT probe (xpuperf/pjrt/probe.h), not a command users type.
  if (argc == 3 && std::string_view(argv[1]) == xpuperf::pjrt::kProbeCommand) {
    return xpuperf::pjrt::RunProbeChild(argv[2], std::cout);
  }
  CLI::App app{
      "xpuperf: telemetry, microbenchmarks, roofline and trace analysis for CPUs, NVIDIA "
      "GPUs and Google TPUs",
      "xpuperf"};
  // The second line names the gzip inflater this build uses for .json.gz traces (docs/TRACES.md).
  app.set_version_flag("--version", std::string("xpuperf ") + xpuperf::kVersion +
                                        "\ngzip inflater: " + xpuperf::InflaterName());
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
      "  xpuperf serve                        Prometheus exporter on 127.0.0.1:10877\n"
      "  xpuperf record -- python train.py    energy, power, memory over a job's life\n"
      "Exit codes: 0 ok, 1 failure, 2 usage error, 3 a gate had nothing to judge, 130/143\n"
      "interrupted by SIGINT/SIGTERM (docs/POLICIES.md).");

  // Global: every command that reads .gz input honours it, given before or after the command.
  std::string max_decompressed;
  app.add_option("--max-decompressed-bytes", max_decompressed,
                 "Cap on decompressed .gz input, e.g. 8GiB (default: a quarter of physical memory; "
                 "docs/POLICIES.md)");
  app.fallthrough();

  CommandActions actions;
#if XPUPERF_ANALYZE_FRONT
  AddAnalyzeCommand(app, actions);
#else
  AddDevicesCommand(app, actions);
  AddMetricsCommand(app, actions);
  AddTopCommand(app, actions);
  AddHealthCommand(app, actions);
#if XPUPERF_WITH_BENCHMARKS
  AddBenchCommand(app, actions);
  AddDiagCommand(app, actions);
  AddCompareCommand(app, actions);
  AddRooflineCommands(app, actions);
#else
  const std::string no_benchmarks = "built without the benchmarks (XPUPERF_WITH_BENCHMARKS=OFF)";
  AddUnavailableCommand(app, actions, "bench", "Microbenchmarks", no_benchmarks);
  AddUnavailableCommand(app, actions, "compare", "Compare two runs or traces", no_benchmarks);
  AddUnavailableCommand(app, actions, "diag", "Active diagnostics", no_benchmarks);
  AddUnavailableCommand(app, actions, "roofline", "Roofline of a benchmark run", no_benchmarks);
  AddUnavailableCommand(app, actions, "diagnose", "Verdicts and advice", no_benchmarks);
#endif
#if XPUPERF_WITH_TRACES
  AddAnalyzeCommand(app, actions);
#else
  AddUnavailableCommand(app, actions, "analyze", "Analyse a profiler trace",
                        "built without trace analysis (XPUPERF_WITH_TRACES=OFF)");
#endif
  AddAlertCommand(app, actions);
#if XPUPERF_WITH_EXPORTER
  AddServeCommand(app, actions);
#else
  AddUnavailableCommand(app, actions, "serve", "Prometheus exporter",
                        "built without the exporter (XPUPERF_WITH_EXPORTER=OFF)");
#endif
  AddRecordCommand(app, actions);
#if XPUPERF_WITH_AGENT
  AddAgentCommand(app, actions);
  AddCaptureCommand(app, actions);
#else
  const std::string no_agent =
      "built without the agent (it needs the exporter's libraries: OpenSSL, yaml-cpp, libxcrypt)";
  AddUnavailableCommand(app, actions, "agent", "Node agent for on-demand traces", no_agent);
  AddUnavailableCommand(app, actions, "capture", "Trace a job on every node at once", no_agent);
#endif
#endif

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

  if (!max_decompressed.empty()) {
    auto bytes = xpuperf::ParseByteSize(max_decompressed, "--max-decompressed-bytes");
    if (!bytes.ok()) {
      std::cerr << "xpuperf: error: " << bytes.error().message << "\n";
      return kExitUsage;
    }
    xpuperf::SetMaxDecompressedBytes(*bytes);
  }
  xpuperf::InstallCancellationHandlers();
  // No control sequence from a file or a process reaches the terminal (terminal_escape.h).
  const xpuperf::render::EscapedStandardStreams escaped;
  // A reader that closes the pipe early (`| head`) makes writes fail with EPIPE instead of
  // killing xpuperf mid-way: files being written are completed, and the lost output is reported
  // (FlushStandardOutput below) with exit 1. The job `record` starts gets the default back.
  std::signal(SIGPIPE, SIG_IGN);
  // The most specific parsed command: subcommands come after their parents.
  for (auto it = actions.rbegin(); it != actions.rend(); ++it) {
    if (!it->command->parsed()) continue;
    int code = it->run();
    // A command stopped by SIGINT/SIGTERM exits 128 + signal, whatever it returned; a daemon's
    // signal is its normal stop.
    if (xpuperf::CancellationRequested() && !it->signal_is_normal_stop) {
      return xpuperf::CancellationExitCode();
    }
    // Output lost to a full disk or a closed pipe (`> /dev/full`) is a failure, never exit 0.
    if (xpuperf::Status flushed = xpuperf::FlushStandardOutput(); !flushed.ok()) {
      std::cerr << "xpuperf: error: " << flushed.error().message << "\n";
      if (code == kExitOk) code = kExitFailure;
    }
    return code;
  }
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // Errors are values throughout; what can still throw is the standard library (out of memory)
  // and CLI11's setup. One line and exit 1 rather than std::terminate's abort and core dump.
  try {
    return RunMain(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "xpuperf: error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "xpuperf: error: unknown exception\n";
  }
  return 1;
}

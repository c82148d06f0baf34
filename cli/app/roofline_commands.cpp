// `roofline` and `diagnose`.
#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "xpuperf/roofline/roofline_command.h"

namespace xpuperf::cli {
namespace {

void AddPointOptions(CLI::App* command, roofline::RooflineOptions& o) {
  command->add_option("--workload", o.workload_file,
                      "Workload file (YAML/JSON list of points or op shapes)");
  command->add_option("--flops", o.flops, "One point: FLOPs");
  command->add_option("--bytes", o.bytes, "One point: bytes moved to/from main memory");
  command->add_option("--host-bytes", o.host_bytes, "One point: bytes over the host link");
  command->add_option("--collective-bytes", o.collective_bytes,
                      "One point: collective bus bytes (nccl-tests busbw counting)");
  command->add_option("--time", o.time_seconds, "One point: measured time, seconds");
  command->add_option("--dtype", o.dtype, "One point: precision (fp64, fp32, bf16, ...)")
      ->capture_default_str();
  command->add_option("--name", o.name, "One point: its name")->capture_default_str();
  command->add_option("--trace", o.trace,
                      "Profiler trace (file or directory of per-rank traces): its GEMMs with "
                      "recorded shapes become points, judged against its GPU's spec sheet");
  command->add_option("--top", o.top, "At most this many GEMM points of the trace, by kernel time")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  command->add_flag("--json", o.json, "JSON output");
}

void AddResultsArgument(CLI::App* command, roofline::RooflineOptions& o) {
  command->add_option("results", o.results_dir,
                      "Result directory of `xpuperf bench run` (optional with --trace)");
}

}  // namespace

void AddRooflineCommands(CLI::App& app, CommandActions& actions) {
  auto roofline = std::make_shared<roofline::RooflineOptions>();
  CLI::App* command = app.add_subcommand("roofline",
                                         "Roofline of a benchmark result directory or a trace's "
                                         "GPU, with workload points and a report");
  AddResultsArgument(command, *roofline);
  AddPointOptions(command, *roofline);
  command
      ->add_option("--spec", roofline->spec,
                   "Spec sheet YAML or shipped sheet name to draw beside the measured roofs, "
                   "'auto' (shipped sheet "
                   "of this device) or 'none'")
      ->capture_default_str();
  command->add_option("--svg", roofline->svg, "Write the roofline picture (SVG) here");
  command->add_option("--html", roofline->html, "Write the single-file HTML report here");
  actions.push_back(
      {command, [roofline] { return roofline::RunRoofline(*roofline, std::cout, std::cerr); }});

  auto diagnose = std::make_shared<roofline::RooflineOptions>();
  CLI::App* diagnose_command = app.add_subcommand(
      "diagnose", "Bound of each workload point (compute, memory, host link, network) and advice");
  AddResultsArgument(diagnose_command, *diagnose);
  AddPointOptions(diagnose_command, *diagnose);
  diagnose_command
      ->add_option("--spec", diagnose->spec,
                   "Spec sheet YAML or shipped sheet name; 'auto': with --trace the sheet of the "
                   "trace's GPU, else measured ceilings only; 'none'")
      ->capture_default_str();
  actions.push_back({diagnose_command, [diagnose] {
                       return roofline::RunDiagnose(*diagnose, std::cout, std::cerr);
                     }});
}

}  // namespace xpuperf::cli

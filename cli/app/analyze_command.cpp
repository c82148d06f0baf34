// `analyze TRACE|DIR`: operator-level analysis of PyTorch/Kineto and JAX traces.
#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "xpuperf/analyze/analyze.h"

namespace xpuperf::cli {

void AddAnalyzeCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<analyze::AnalyzeOptions>();
  CLI::App* command = app.add_subcommand(
      "analyze",
      "Analyse a PyTorch/Kineto or JAX trace (.json, .gz, .xplane.pb, or a directory of ranks)");
  command
      ->add_option("trace", options->path,
                   "Trace file, directory of per-rank traces, or memory timeline")
      ->required();
  std::string names;
  for (const auto& name : trace::AnalysisNames()) names += (names.empty() ? "" : ", ") + name;
  command->add_option("--analysis,-a", options->analyses,
                      "Only these analyses (repeatable): " + names);
  command
      ->add_option("--convention", options->convention,
                   "xpuperf (default) or hta: read the trace and define the analyses as Holistic "
                   "Trace Analysis does (its numbers; docs/TRACES.md)")
      ->capture_default_str();
  command->add_flag("--include-last-profiler-step", options->include_last_profiler_step,
                    "With --convention hta: HTA's include_last_profiler_step=True (the last "
                    "ProfilerStep kept; HTA's default drops it)");
  command->add_flag("--json", options->json, "Everything as one JSON document");
  command->add_flag("--progress", options->progress,
                    "A line on stderr per trace file of a directory read (default: on a "
                    "terminal, or once the read takes 10 s)");
  command->add_option("--html", options->html, "Also write a single-file HTML report here");
  command->add_option("--top", options->top, "Rows of the top-k tables")->capture_default_str();
  command->add_option("--critical-path-range", options->critical_path_range,
                      "Walk the critical path over the last host range (annotation or op) whose "
                      "name contains this text; default: the last ProfilerStep#N, else from the "
                      "first GPU launch to the end");
  command->add_option("--telemetry", options->telemetry,
                      "Lay a recording (`xpuperf record --out DIR`) over the trace: energy per "
                      "step and op class");
  command->add_option("--merged-trace", options->merged_trace,
                      "With --telemetry: write the trace with the counter tracks added here");
  command->add_option("--telemetry-offset", options->telemetry_offset_s,
                      "With --telemetry: seconds added to the trace's wall clock");
  command
      ->add_option("--spec", options->spec,
                   "Peaks for MFU: auto (the shipped sheet of the trace's GPU), host (this "
                   "machine's CPU, for a CPU trace recorded here), none, or a sheet's name or "
                   "file")
      ->capture_default_str();
  command->add_option("--export-chrome", options->export_chrome,
                      "Also write the trace(s) as Chrome-trace JSON here (chrome://tracing, "
                      "Perfetto): e.g. to view an .xplane.pb");
  actions.push_back({command, [options] {
#if !XPUPERF_ANALYZE_FRONT  // the front runs xpuperf-full under an MPI launcher (main.cpp)
                       if (auto launch = analyze::DetectMpiLaunch(); launch && launch->size != 1) {
#if XPUPERF_ANALYZE_MPI
                         return analyze::RunAnalyzeOverMpi(*options, std::cout, std::cerr);
#else
      // Without MPI the processes cannot share the work: process 0 does all of it, alone.
      if (launch->rank != 0) return kExitOk;
      std::cerr << "xpuperf analyze: note: built without MPI: process 0 of the job reads every "
                   "file, the others exit\n";
#endif
                       }
#endif
                       return analyze::RunAnalyze(*options, std::cout, std::cerr);
                     }});
}

}  // namespace xpuperf::cli

#include "xpuperf/roofline/roofline_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>

#include "report.h"
#include "xpuperf/analysis/bench_check_command.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/roofline/trace_points.h"
#include "xpuperf/spec/spec_argument.h"
#include "xpuperf/spec/spec_sheet.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::roofline {
namespace {

int Fail(std::ostream& err, std::string_view command, const Error& error) {
  err << "xpuperf " << command << ": error: " << error.message << "\n";
  return ExitCodeFor(error);
}

bool HasCommandLinePoint(const RooflineOptions& o) {
  return o.flops || o.bytes || o.host_bytes || o.collective_bytes;
}

Result<std::optional<Workload>> LoadWorkloadOptions(const RooflineOptions& o) {
  std::optional<Workload> workload;
  if (!o.workload_file.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(Workload loaded, LoadWorkload(o.workload_file));
    workload = std::move(loaded);
  }
  if (HasCommandLinePoint(o)) {
    WorkloadPoint point;
    point.name = o.name;
    point.dtype = o.dtype;
    point.flops = o.flops.value_or(0);
    point.bytes = o.bytes.value_or(0);
    point.host_bytes = o.host_bytes.value_or(0);
    point.collective_bytes = o.collective_bytes.value_or(0);
    point.time_seconds = o.time_seconds;
    if (Status valid = ValidatePoint(point); !valid.ok()) {
      return MakeError(ErrorCode::kInvalidArgument, "command-line point: " + valid.error().message);
    }
    if (!workload) workload = Workload{};
    workload->points.push_back(std::move(point));
  } else if (o.time_seconds) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--time needs --flops, --bytes, --host-bytes or --collective-bytes");
  }
  return workload;
}

// The sheet to compare with, and a note when there is none.
Result<std::optional<spec::SpecSheet>> LoadSpec(const RooflineOptions& o,
                                                const BenchResults& results, std::string& note) {
  if (o.spec == "none") {
    note = "spec comparison turned off (--spec none)";
    return std::optional<spec::SpecSheet>();
  }
  if (o.spec.empty() || o.spec == "auto") {
    // The shipped sheet of the run's device, or the sheet computed for this machine's CPU: the
    // same choice as `xpuperf bench check --spec auto`.
    Result<bench::ResultDirectory> run = bench::ReadResultDirectory(o.results_dir);
    if (!run.ok()) {
      note = "no spec comparison: " + run.error().message;
      return std::optional<spec::SpecSheet>();
    }
    Result<spec::SpecSheet> sheet = analysis::ResolveSpecSheet(*run, "auto", "/");
    if (!sheet.ok()) {
      note = "no spec comparison: " + sheet.error().message;
      return std::optional<spec::SpecSheet>();
    }
    return std::optional<spec::SpecSheet>(std::move(*sheet));
  }
  XPUPERF_ASSIGN_OR_RETURN(spec::SpecSheet sheet, spec::LoadSpecArgument(o.spec));
  return std::optional<spec::SpecSheet>(std::move(sheet));
}

// A report and, with --trace, what the trace added and where its points' ceilings come from.
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct Built {
  Report report;
  std::optional<TracePoints> trace;
  std::string ceilings_line;  // "ceilings: spec sheet ... (from the trace's deviceProperties)"
  std::string no_ceilings;    // why the trace's points could not be judged (diagnose goes on)
};

bool IsAuto(const std::string& spec) { return spec.empty() || spec == "auto"; }

// Whether a result directory measured the trace's device: the same model name, or a model the
// trace device's sheet lists as an alias.
bool SameDevice(const std::string& results_model, const std::string& trace_device,
                const std::optional<spec::SpecSheet>& trace_sheet) {
  if (!results_model.empty() && spec::Lower(results_model) == spec::Lower(trace_device))
    return true;
  return trace_sheet && !results_model.empty() &&
         spec::FindSpecSheet({*trace_sheet}, results_model) != nullptr;
}

// The sheet the trace's points (and any other points) are judged against; built.ceilings_line says
// where the ceilings come from. A trace from a GPU that has a shipped sheet is never judged against
// the ceilings of a result directory measured on another device: that is an error naming both.
Result<std::optional<spec::SpecSheet>> TraceSheet(const RooflineOptions& o, const TracePoints& tp,
                                                  const BenchResults& results, Built& built,
                                                  std::string& note) {
  const bool have_results = !o.results_dir.empty();
  std::optional<spec::SpecSheet> device_sheet;
  std::string shipped;
  if (!tp.device.empty()) {
    Result<std::vector<spec::SpecSheet>> sheets = spec::LoadSpecSheets(spec::ShippedSpecSheetDir());
    if (sheets.ok()) {
      if (const spec::SpecSheet* found = spec::FindSpecSheet(*sheets, tp.device)) {
        device_sheet = *found;
      }
      shipped = spec::ShippedSheetNames(*sheets);
    }
  }
  const std::string results_model =
      results.device_model.empty() ? "an unnamed device" : results.device_model;
  std::string other_device;
  if (have_results && !tp.device.empty() &&
      !SameDevice(results.device_model, tp.device, device_sheet)) {
    if (device_sheet && IsAuto(o.spec)) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          fmt::format("the trace {} ran on {} but {} measured {}: one device's ceilings cannot "
                      "judge another's kernels; drop the result directory (the trace's points are "
                      "then judged against the spec sheet {}) or give results measured on {}",
                      tp.path, tp.device, o.results_dir, results_model,
                      spec::SheetName(*device_sheet), tp.device));
    }
    other_device = fmt::format(
        "; note: {} measured {}, not the trace's {}{}: the trace's points are placed against "
        "another device's ceilings, so their verdicts only indicate",
        o.results_dir, results_model, tp.device,
        device_sheet ? "" : " (no shipped spec sheet matches it)");
  }

  std::optional<spec::SpecSheet> sheet;
  bool explicit_sheet = false;
  if (o.spec == "none") {
    note = "spec comparison turned off (--spec none)";
  } else if (!IsAuto(o.spec)) {
    XPUPERF_ASSIGN_OR_RETURN(spec::SpecSheet loaded, spec::LoadSpecArgument(o.spec));
    sheet = std::move(loaded);
    explicit_sheet = true;
  } else if (device_sheet) {
    sheet = device_sheet;
  } else if (have_results) {
    XPUPERF_ASSIGN_OR_RETURN(sheet, LoadSpec(o, results, note));
  } else if (!tp.device.empty()) {
    note = fmt::format("no shipped spec sheet matches {}", tp.device);
  }

  std::string line;
  if (have_results) {
    line = fmt::format("ceilings: measured in {} ({})", o.results_dir, results_model);
    if (sheet) {
      line += fmt::format(", spec sheet {} where nothing was measured", spec::SheetName(*sheet));
    }
    if (tp.cpu_trace && !tp.points.empty()) {
      line +=
          "; the trace is a CPU run: its GEMM points (CPU ops timed by their duration) are "
          "placed against these ceilings";
    } else if (tp.device.empty() && !tp.points.empty()) {
      line += fmt::format(
          "; note: the trace does not name its GPU ({}): its points are placed "
          "against these ceilings",
          tp.device_note);
    }
    line += other_device;
  } else if (sheet) {
    line = fmt::format("ceilings: spec sheet {} ({})", spec::SheetName(*sheet),
                       explicit_sheet ? "--spec" : "from the trace's deviceProperties");
    if (!tp.device.empty() && spec::FindSpecSheet({*sheet}, tp.device) == nullptr) {
      line += fmt::format("; note: the sheet describes {}, the trace ran on {}", sheet->device,
                          tp.device);
    } else if (tp.device.empty() && !tp.points.empty()) {
      line += fmt::format("; note: the trace does not name its GPU ({})", tp.device_note);
    }
  } else if (o.spec == "none") {
    built.no_ceilings = "no ceilings: --spec none and no result directory";
  } else if (!tp.device.empty()) {
    built.no_ceilings = fmt::format(
        "no ceilings for the trace's device {}: no shipped spec sheet matches it{}; give a result "
        "directory measured on it or --spec FILE|NAME",
        tp.device, shipped.empty() ? "" : " (sheets: " + shipped + ")");
  } else {
    built.no_ceilings = fmt::format(
        "no ceilings for the trace's points: {}; give a result directory (xpuperf bench run "
        "--out DIR) or --spec FILE|NAME",
        tp.device_note);
  }
  built.ceilings_line = line.empty() ? built.no_ceilings : line;
  return sheet;
}

Result<Built> Build(const RooflineOptions& o, bool diagnose) {
  if (o.results_dir.empty() && o.trace.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give a result directory (xpuperf bench run --out DIR) or --trace PATH");
  }
  Built built;
  if (!o.trace.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(TracePoints points, LoadTracePoints(o.trace, o.top));
    built.trace = std::move(points);
  }
  XPUPERF_ASSIGN_OR_RETURN(std::optional<Workload> workload, LoadWorkloadOptions(o));
  BenchResults results;
  if (!o.results_dir.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(results, ReadBenchResults(o.results_dir));
  }
  std::string note;
  std::optional<spec::SpecSheet> sheet;
  if (!built.trace) {
    // `--spec auto` means the same in roofline and diagnose: the sheet of the run's device (or the
    // one computed for this CPU) fills in what was not measured.
    XPUPERF_ASSIGN_OR_RETURN(sheet, LoadSpec(o, results, note));
  } else {
    XPUPERF_ASSIGN_OR_RETURN(sheet, TraceSheet(o, *built.trace, results, built, note));
    const TracePoints& tp = *built.trace;
    if (o.results_dir.empty()) {
      // No run: the report names the trace and its device instead.
      results.directory = "none";
      results.run_id = "-";
      results.backend = "trace";
      results.device_model = tp.device.empty() ? "unknown device" : tp.device;
    }
    const bool no_ceilings = !built.no_ceilings.empty();
    if (no_ceilings && !tp.points.empty() && (!diagnose || workload)) {
      return MakeError(ErrorCode::kInvalidArgument, built.no_ceilings);
    }
    if (!no_ceilings && !tp.points.empty()) {
      if (!workload) {
        workload = Workload{};
        workload->name = tp.path;
      }
      workload->points.insert(workload->points.end(), tp.points.begin(), tp.points.end());
    }
  }
  const bool trace_only = built.trace && o.results_dir.empty();
  XPUPERF_ASSIGN_OR_RETURN(built.report,
                           BuildReport(std::move(results), std::move(sheet), std::move(workload)));
  built.report.spec_note = note;
  if (built.trace) {
    const TracePoints& tp = *built.trace;
    if (tp.points.empty()) {
      built.report.no_points_reason = NoGemmPointsReason(tp);
    } else if (!built.no_ceilings.empty()) {
      built.report.no_points_reason = built.no_ceilings;
    }
    if (trace_only) {
      built.report.source_note = fmt::format("trace {}; {}", tp.path, built.ceilings_line);
    }
  }
  return built;
}

// Where the trace came from, how many points it gave and where their ceilings come from.
std::string TraceHeader(const Built& built) {
  const TracePoints& tp = *built.trace;
  std::string out =
      fmt::format("Trace: {} ({} rank{}, device {})\n", tp.path, tp.ranks, tp.ranks == 1 ? "" : "s",
                  tp.device.empty() ? "unknown: " + tp.device_note : tp.device);
  if (tp.gemm_points == 0) {
    out += "GEMM points: none: " + NoGemmPointsReason(tp) + "\n";
  } else {
    out += fmt::format("GEMM points: {} of {} (the top {} by kernel time; {} left out)\n",
                       tp.points.size(), tp.gemm_points, tp.top, tp.left_out);
  }
  if (!built.no_ceilings.empty()) {
    if (!tp.points.empty()) {
      out += built.no_ceilings + "\nThe trace's GEMM points are not judged.\n";
    }
  } else if (!built.ceilings_line.empty()) {
    out += built.ceilings_line + "\n";
  }
  return out;
}

nlohmann::json TraceJson(const Built& built) {
  const TracePoints& tp = *built.trace;
  nlohmann::json json = {
      {"path", tp.path},
      {"ranks", tp.ranks},
      {"device", tp.device.empty() ? nlohmann::json() : nlohmann::json(tp.device)},
      {"device_note", tp.device_note},
      {"gemm_points", tp.gemm_points},
      {"points_used", tp.points.size()},
      {"left_out", tp.left_out},
      {"top", tp.top},
      // No line when no point needed ceilings and none were found.
      {"ceilings",
       tp.points.empty() && !built.no_ceilings.empty() ? std::string() : built.ceilings_line},
      {"points_judged", built.no_ceilings.empty()}};
  json["note"] = tp.gemm_points == 0 ? NoGemmPointsReason(tp) : "";
  json["cpu_trace"] = tp.cpu_trace;
  return json;
}

std::string FindingsText(const std::vector<trace::Finding>& findings) {
  std::string out = "Trace findings (the rules of xpuperf analyze, docs/TRACES.md)\n";
  for (const trace::Finding& f : findings) {
    out += fmt::format("  [{}] rank {}: {}\n      evidence: {}\n      advice:   {}\n",
                       trace::SeverityName(f.severity), f.rank, f.title, f.evidence, f.advice);
  }
  if (findings.empty()) out += "  none of the rules fired\n";
  return out;
}

}  // namespace

int RunRoofline(const RooflineOptions& options, std::ostream& out, std::ostream& err) {
  // The output paths are checked before any work: a bad --svg/--html fails at once.
  for (const std::string* path : {&options.svg, &options.html}) {
    if (path->empty()) continue;
    if (Result<OutputTarget> target = PrepareOutput(*path); !target.ok()) {
      return Fail(err, "roofline", target.error());
    }
    std::vector<std::string> inputs =
        InputFilesAt(options.results_dir, {"results.jsonl", "environment.json", "summary.csv"});
    for (const std::string& extra : {options.workload_file, options.spec}) inputs.push_back(extra);
    for (std::string& file : InputFilesAt(options.trace, {".json", ".json.gz", ".pb"})) {
      inputs.push_back(std::move(file));
    }
    if (Status status = CheckOutputIsNotAnInput(*path, inputs); !status.ok()) {
      return Fail(err, "roofline", status.error());
    }
  }
  Result<Built> built = Build(options, /*diagnose=*/false);
  if (!built.ok()) return Fail(err, "roofline", built.error());
  if (!options.results_dir.empty()) {
    if (auto run = bench::ReadResultDirectory(options.results_dir); run.ok())
      err << bench::PartialRunNote(*run, "xpuperf roofline");
  }
  const Report& report = built->report;
  if (report.ceilings.all.empty()) {
    return Fail(err, "roofline",
                MakeError(ErrorCode::kInvalidArgument,
                          !built->no_ceilings.empty()
                              ? built->no_ceilings
                              : options.results_dir +
                                    " holds no result the roofline uses (peak_fma, gemm, stream, "
                                    "cache_sweep, host_transfer, collectives)"));
  }
  // Both files are written to their temporaries before either is renamed into place: a failure
  // of one leaves neither.
  std::vector<OutputFile> files;
  for (const auto& [path, text] :
       {std::pair{&options.svg, options.svg.empty() ? std::string() : RenderSvg(report)},
        std::pair{&options.html, options.html.empty() ? std::string() : RenderHtml(report)}}) {
    if (path->empty()) continue;
    Result<OutputFile> file = OutputFile::Open(*path);
    if (!file.ok()) return Fail(err, "roofline", file.error());
    if (Status s = file->Write(text); !s.ok()) return Fail(err, "roofline", s.error());
    files.push_back(std::move(file).value());
  }
  for (OutputFile& file : files) {
    if (Status s = file.Commit(); !s.ok()) return Fail(err, "roofline", s.error());
  }
  if (options.json) {
    nlohmann::json json = ReportJson(report);
    if (built->trace) json["trace"] = TraceJson(*built);
    out << json.dump(2) << "\n";
  } else {
    if (built->trace) out << TraceHeader(*built) << "\n";
    out << RenderText(report);
    if (!options.svg.empty()) out << "\nSVG written to " << options.svg << "\n";
    if (!options.html.empty()) out << "HTML report written to " << options.html << "\n";
  }
  return kExitOk;
}

int RunDiagnose(const RooflineOptions& options, std::ostream& out, std::ostream& err) {
  if (options.workload_file.empty() && !HasCommandLinePoint(options) && options.trace.empty()) {
    err << "xpuperf diagnose: error: give --workload FILE, --trace PATH or "
           "--flops/--bytes/--time\n";
    return kExitUsage;
  }
  Result<Built> built = Build(options, /*diagnose=*/true);
  if (!built.ok()) return Fail(err, "diagnose", built.error());
  const Report& report = built->report;
  if (options.json) {
    nlohmann::json json = DiagnoseJson(report);
    if (built->trace) {
      json["trace"] = TraceJson(*built);
      json["trace_findings"] = trace::FindingsToJson(built->trace->findings);
    }
    out << json.dump(2) << "\n";
    return kExitOk;
  }
  if (built->trace) out << TraceHeader(*built) << "\n";
  if (report.analysis) out << RenderDiagnoseText(report);
  if (built->trace) out << (report.analysis ? "\n" : "") << FindingsText(built->trace->findings);
  return kExitOk;
}

}  // namespace xpuperf::roofline

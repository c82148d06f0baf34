#include "command_roofline.h"

#include <fmt/format.h>

#include <ostream>

#include "command_bench_check.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/cli/commands.h"
#include "xpuperf/roofline/atomic_file.h"
#include "xpuperf/roofline/report.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::cli {
namespace {

using roofline::Report;

int Fail(std::ostream& err, std::string_view command, const Error& error) {
  err << "xpuperf " << command << ": " << error.message << "\n";
  return ExitCodeFor(error);
}

bool HasCommandLinePoint(const RooflineOptions& o) {
  return o.flops || o.bytes || o.host_bytes || o.collective_bytes;
}

Result<std::optional<roofline::Workload>> LoadWorkloadOptions(const RooflineOptions& o) {
  std::optional<roofline::Workload> workload;
  if (!o.workload_file.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(roofline::Workload loaded, roofline::LoadWorkload(o.workload_file));
    workload = std::move(loaded);
  }
  if (HasCommandLinePoint(o)) {
    roofline::WorkloadPoint point;
    point.name = o.name;
    point.dtype = o.dtype;
    point.flops = o.flops.value_or(0);
    point.bytes = o.bytes.value_or(0);
    point.host_bytes = o.host_bytes.value_or(0);
    point.collective_bytes = o.collective_bytes.value_or(0);
    point.time_seconds = o.time_seconds;
    if (Status valid = roofline::ValidatePoint(point); !valid.ok()) {
      return MakeError(ErrorCode::kInvalidArgument, "command-line point: " + valid.error().message);
    }
    if (!workload) workload = roofline::Workload{};
    workload->points.push_back(std::move(point));
  } else if (o.time_seconds) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--time needs --flops, --bytes, --host-bytes or --collective-bytes");
  }
  return workload;
}

// The sheet to compare with, and a note when there is none.
Result<std::optional<spec::SpecSheet>> LoadSpec(const RooflineOptions& o,
                                                const roofline::BenchResults& results,
                                                std::string& note) {
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
    Result<spec::SpecSheet> sheet = ResolveSpecSheet(*run, "auto", "/");
    if (!sheet.ok()) {
      note = "no spec comparison: " + sheet.error().message;
      return std::optional<spec::SpecSheet>();
    }
    return std::optional<spec::SpecSheet>(std::move(*sheet));
  }
  XPUPERF_ASSIGN_OR_RETURN(spec::SpecSheet sheet, spec::LoadSpecSheet(o.spec));
  return std::optional<spec::SpecSheet>(std::move(sheet));
}

Result<Report> Build(const RooflineOptions& o) {
  if (o.results_dir.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give a result directory (xpuperf bench run --out DIR)");
  }
  XPUPERF_ASSIGN_OR_RETURN(roofline::BenchResults results,
                           roofline::ReadBenchResults(o.results_dir));
  XPUPERF_ASSIGN_OR_RETURN(std::optional<roofline::Workload> workload, LoadWorkloadOptions(o));
  std::string note;
  XPUPERF_ASSIGN_OR_RETURN(std::optional<spec::SpecSheet> sheet, LoadSpec(o, results, note));
  XPUPERF_ASSIGN_OR_RETURN(
      Report report,
      roofline::BuildReport(std::move(results), std::move(sheet), std::move(workload)));
  report.spec_note = note;
  return report;
}

}  // namespace

int RunRoofline(const RooflineOptions& options, std::ostream& out, std::ostream& err) {
  Result<Report> report = Build(options);
  if (!report.ok()) return Fail(err, "roofline", report.error());
  if (report->ceilings.all.empty()) {
    return Fail(err, "roofline",
                MakeError(ErrorCode::kInvalidArgument,
                          options.results_dir +
                              " holds no result the roofline uses (peak_fma, gemm, stream, "
                              "cache_sweep, host_transfer, collectives)"));
  }
  // Both files are rendered before either is written: a bad input leaves neither.
  if (!options.svg.empty()) {
    if (Status s = roofline::WriteFileAtomically(options.svg, roofline::RenderSvg(*report));
        !s.ok()) {
      return Fail(err, "roofline", s.error());
    }
  }
  if (!options.html.empty()) {
    if (Status s = roofline::WriteFileAtomically(options.html, roofline::RenderHtml(*report));
        !s.ok()) {
      return Fail(err, "roofline", s.error());
    }
  }
  if (options.json) {
    out << roofline::ReportJson(*report).dump(2) << "\n";
  } else {
    out << roofline::RenderText(*report);
    if (!options.svg.empty()) out << "\nSVG written to " << options.svg << "\n";
    if (!options.html.empty()) out << "HTML report written to " << options.html << "\n";
  }
  return kExitOk;
}

int RunDiagnose(const RooflineOptions& options, std::ostream& out, std::ostream& err) {
  if (options.workload_file.empty() && !HasCommandLinePoint(options)) {
    err << "xpuperf diagnose: give --workload FILE (or --flops/--bytes/--time)\n";
    return kExitUsage;
  }
  RooflineOptions without_spec = options;
  without_spec.spec = "none";
  Result<Report> report = Build(without_spec);
  if (!report.ok()) return Fail(err, "diagnose", report.error());
  if (options.json) {
    out << roofline::DiagnoseJson(*report).dump(2) << "\n";
  } else {
    out << roofline::RenderDiagnoseText(*report);
  }
  return kExitOk;
}

}  // namespace xpuperf::cli

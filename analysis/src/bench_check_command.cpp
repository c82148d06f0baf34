// `xpuperf bench check`: reads a result directory, picks the spec sheet, prints achieved / spec.
#include "xpuperf/analysis/bench_check_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <ostream>

#include "xpuperf/analysis/cpu_spec_sheet.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/render/text_table.h"
#include "xpuperf/spec/spec_argument.h"

namespace xpuperf::analysis {
namespace {

constexpr const char* kCommand = "xpuperf bench check";

// "101.65 GFLOP/s", "3.35 TB/s": base units scaled for reading (GB = 1e9 bytes).
std::string FormatThroughput(double value, const std::string& unit) {
  const bool flops = unit == "FLOP/s";
  const char* prefix = "";
  double scaled = value;
  if (std::fabs(value) >= 1e12) {
    prefix = "T";
    scaled = value / 1e12;
  } else if (std::fabs(value) >= 1e9 || value == 0) {
    prefix = "G";
    scaled = value / 1e9;
  } else {
    prefix = "M";
    scaled = value / 1e6;
  }
  return fmt::format("{:.2f} {}{}", scaled, prefix, flops ? "FLOP/s" : "B/s");
}

Status ValidateThreshold(double percent, const char* option) {
  if (!std::isfinite(percent) || percent < 0 || percent > 1000) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{} must be a percentage between 0 and 1000, got {}", option, percent));
  }
  return Status::Ok();
}

}  // namespace

Result<spec::SpecSheet> ResolveSpecSheet(const bench::ResultDirectory& run, const std::string& spec,
                                         const std::string& root) {
  if (spec != "auto") {
    // A shipped sheet by its name ("tpu-v5e", "nvidia-h100-sxm"), unless a file of that name
    // exists.
    std::error_code ec;
    if (spec.find('/') == std::string::npos && !std::filesystem::exists(spec, ec)) {
      const std::string shipped =
          spec::ShippedSpecSheetDir() + "/" + spec + (spec.ends_with(".yaml") ? "" : ".yaml");
      if (std::filesystem::exists(shipped, ec)) return spec::LoadSpecSheet(shipped);
    }
    return spec::LoadSpecSheet(spec);
  }
  const std::string dir = spec::ShippedSpecSheetDir();
  XPUPERF_ASSIGN_OR_RETURN(const std::vector<spec::SpecSheet> sheets, spec::LoadSpecSheets(dir));
  if (const spec::SpecSheet* sheet = spec::FindSpecSheet(sheets, run.device.model)) return *sheet;
  if (run.device.backend == "cpu") {
    XPUPERF_ASSIGN_OR_RETURN(const Device local, cpu::LocalCpuDevice(root));
    if (local.model != run.device.model) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          fmt::format("the run's CPU '{}' is not this machine's '{}': the computed CPU "
                      "sheet describes this machine; pass --spec FILE",
                      run.device.model, local.model));
    }
    return CpuSpecSheet(local, root, MeasuredRunClock(run));
  }
  std::string known;
  for (const spec::SpecSheet& sheet : sheets) known += (known.empty() ? "" : ", ") + sheet.device;
  return MakeError(
      ErrorCode::kNotFound,
      fmt::format("no spec sheet for device '{}' (backend {}) in {} (sheets: {}); "
                  "pass --spec FILE",
                  run.device.model, run.device.backend.empty() ? "unknown" : run.device.backend,
                  dir, known));
}

// Rows with a verdict: measured and with a spec figure.
static int JudgedRows(const CheckReport& report) {
  int judged = 0;
  for (const CheckRow& row : report.rows) {
    judged += row.verdict == CheckVerdict::kPass || row.verdict == CheckVerdict::kFail;
  }
  return judged;
}

std::string RenderCheckReport(const CheckReport& report, const std::string& results) {
  std::string text = fmt::format("Spec check of {} ({}) against {} ({})\n", results,
                                 report.run_device.empty() ? "unknown device" : report.run_device,
                                 report.sheet_device, report.sheet_source);
  render::TextTable table("", {{"component"},
                               {"metric"},
                               {"measured", render::TextTable::Align::kRight},
                               {"spec", render::TextTable::Align::kRight},
                               {"achieved", render::TextTable::Align::kRight},
                               {"threshold", render::TextTable::Align::kRight},
                               {"verdict"}});
  std::string sources;
  for (const CheckRow& row : report.rows) {
    table.AddRow({row.component, row.metric,
                  row.measured ? FormatThroughput(*row.measured, row.unit) : "-",
                  row.spec ? FormatThroughput(*row.spec, row.unit) : "-",
                  row.achieved_percent ? fmt::format("{:.1f}%", *row.achieved_percent) : "-",
                  fmt::format(">= {:g}%", row.threshold_percent),
                  std::string(CheckVerdictName(row.verdict))});
    sources += fmt::format("  {} {}: measured: {}; spec: {}\n", row.component, row.metric,
                           row.measured_from.empty() ? "-" : row.measured_from, row.spec_from);
  }
  text += table.Render(40);
  text += "Where the figures come from:\n" + sources;
  int failed = 0;
  std::string misses;
  for (const CheckRow& row : report.rows) {
    if (row.verdict != CheckVerdict::kFail) continue;
    ++failed;
    misses += fmt::format("{}{} {} {:.1f}% < {:g}%", misses.empty() ? "" : "; ", row.component,
                          row.metric, *row.achieved_percent, row.threshold_percent);
  }
  const auto unstable = std::count_if(report.rows.begin(), report.rows.end(), [](const auto& row) {
    return row.verdict == CheckVerdict::kUnstable;
  });
  if (unstable > 0) {
    text += fmt::format(
        "UNSTABLE: {} figure(s) not judged: measured on a busy machine, with a "
        "spread above the target or inconsistent with another figure (see "
        "above); run again on an idle machine\n",
        unstable);
  }
  if (JudgedRows(report) == 0) {
    text +=
        "NOTHING TO CHECK: no stable measured figure has a spec figure to compare with "
        "(exit 3)\n";
  } else {
    text += failed == 0 ? "PASS: every measured figure with a spec reaches its threshold\n"
                        : fmt::format("FAIL: {} below threshold: {}\n", failed, misses);
  }
  return text;
}

int RunBenchCheck(const BenchCheckOptions& options, std::ostream& out, std::ostream& err) {
  const auto fail = [&err](const Error& error) {
    err << kCommand << ": error: " << error.message << "\n";
    return ExitCodeFor(error);
  };
  const CheckThresholds& t = options.thresholds;
  for (const auto& [percent, option] :
       {std::pair{t.compute, "--compute"}, std::pair{t.memory, "--memory"},
        std::pair{t.network, "--network"}, std::pair{t.host_transfer, "--host-transfer"}}) {
    if (Status status = ValidateThreshold(percent, option); !status.ok()) {
      return fail(status.error());
    }
  }
  if (!options.export_path.empty()) {
    if (auto target = PrepareOutput(options.export_path); !target.ok()) {
      err << kCommand << ": error: --export: " << target.error().message << "\n";
      return kExitUsage;
    }
    std::vector<std::string> inputs =
        InputFilesAt(options.results, {"results.jsonl", "environment.json", "summary.csv"});
    inputs.push_back(options.spec);
    if (Status status = CheckOutputIsNotAnInput(options.export_path, inputs); !status.ok()) {
      err << kCommand << ": error: --export: " << status.error().message << "\n";
      return kExitUsage;
    }
  }
  auto run = bench::ReadResultDirectory(options.results);
  if (!run.ok()) return fail(run.error());
  err << bench::PartialRunNote(*run, kCommand);
  auto sheet = ResolveSpecSheet(*run, options.spec, options.root);
  if (!sheet.ok()) return fail(sheet.error());
  const CheckReport report = CheckAgainstSpec(*run, *sheet, t);
  // A gate with nothing to judge (an empty results.jsonl, no figure in common with the sheet)
  // must not pass: it exits 3 and says why.
  const bool nothing = JudgedRows(report) == 0;
  if (!options.export_path.empty()) {
    nlohmann::json exported = ToJson(report);
    exported["results"] = options.results;
    exported["judged"] = JudgedRows(report);
    if (JudgedRows(report) == 0) exported["verdict"] = "nothing to check";
    exported["checked_at_unix_seconds"] =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (Status status = WriteOutputFile(options.export_path, exported.dump(2) + "\n");
        !status.ok()) {
      return fail(status.error());
    }
  }
  if (options.json) {
    nlohmann::json json = ToJson(report);
    json["results"] = options.results;
    json["judged"] = JudgedRows(report);
    if (nothing) json["verdict"] = "nothing to check";
    out << json.dump(2) << "\n";
  } else {
    out << RenderCheckReport(report, options.results);
  }
  if (nothing) {
    err << kCommand << ": error: nothing to check: "
        << (run->records.empty() ? options.results + " holds no result record"
                                 : "no stable measured figure has a spec figure to compare with")
        << "\n";
    return kExitNothingToJudge;
  }
  return report.Passed() ? kExitOk : kExitFailure;
}

}  // namespace xpuperf::analysis

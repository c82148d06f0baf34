#include "trace_peaks.h"

#include <fmt/format.h>

#include <algorithm>

#include "xpuperf/analysis/cpu_spec_sheet.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/roofline/trace_points.h"
#include "xpuperf/spec/spec_argument.h"

namespace xpuperf::analyze {

namespace {

trace::PeakFlops PeaksOf(const spec::SpecSheet& sheet, std::string source) {
  trace::PeakFlops peaks;
  peaks.device = sheet.device;
  peaks.source = std::move(source);
  peaks.per_precision = sheet.peak_flops_per_second;
  return peaks;
}

trace::PeakFlops Unavailable(std::string why) {
  trace::PeakFlops peaks;
  peaks.unavailable = std::move(why);
  return peaks;
}

}  // namespace

Result<trace::PeakFlops> ResolveTracePeaks(const trace::TraceRun& run, const std::string& spec,
                                           const std::string& root) {
  if (spec == "none") return Unavailable("turned off (--spec none)");
  if (spec == "host") {
    XPUPERF_ASSIGN_OR_RETURN(const Device local, cpu::LocalCpuDevice(root));
    XPUPERF_ASSIGN_OR_RETURN(const spec::SpecSheet sheet, analysis::CpuSpecSheet(local, root));
    return PeaksOf(sheet, fmt::format("the spec sheet computed for this machine's CPU, {} "
                                      "(--spec host)",
                                      sheet.device));
  }
  if (!spec.empty() && spec != "auto") {
    XPUPERF_ASSIGN_OR_RETURN(const spec::SpecSheet sheet, spec::LoadSpecArgument(spec));
    return PeaksOf(sheet, fmt::format("spec sheet {} (--spec)", spec::SheetName(sheet)));
  }
  // A trace with no GPU work (no GPU op, no launch call) ran its operators on the CPU, whatever
  // devices its deviceProperties list.
  const bool gpu = std::any_of(run.ranks.begin(), run.ranks.end(), [](const trace::Trace& t) {
    return std::any_of(t.events.begin(), t.events.end(), [](const trace::TraceEvent& e) {
      return trace::IsGpuOp(e.kind) || e.kind == trace::EventKind::kRuntime ||
             e.kind == trace::EventKind::kDriver;
    });
  });
  if (!gpu) {
    return Unavailable(
        "the trace shows no GPU work, so its operators ran on the CPU: give --spec host for "
        "this machine's CPU (if the trace was recorded here), or --spec NAME|FILE");
  }
  std::string device, why;
  for (const trace::Trace& rank : run.ranks) {
    device = roofline::TraceDeviceName(rank, &why);
    if (!device.empty()) break;
  }
  if (device.empty()) {
    return Unavailable(fmt::format("the trace does not name its GPU ({}): give --spec NAME|FILE",
                                   why.empty() ? "no deviceProperties" : why));
  }
  XPUPERF_ASSIGN_OR_RETURN(const std::vector<spec::SpecSheet> sheets,
                           spec::LoadSpecSheets(spec::ShippedSpecSheetDir()));
  const spec::SpecSheet* sheet = spec::FindSpecSheet(sheets, device);
  if (sheet == nullptr) {
    return Unavailable(
        fmt::format("no shipped spec sheet for '{}' (shipped: {}): give --spec "
                    "FILE",
                    device, spec::ShippedSheetNames(sheets)));
  }
  return PeaksOf(*sheet, fmt::format("spec sheet {} (the trace's device, {})",
                                     spec::SheetName(*sheet), device));
}

}  // namespace xpuperf::analyze

// `xpuperf bench compile-check` (bench_compile_command.h).
#include "xpuperf/bench_commands/bench_compile_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "xpuperf/core/exit_code.h"
#include "xpuperf/pjrt_bench/compile_check.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/text_table.h"

namespace xpuperf::bench_commands {
namespace {

template <typename T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string BytesOrDash(const std::optional<int64_t>& bytes) {
  return bytes ? FormatBytes(static_cast<double>(*bytes)) : "-";
}

nlohmann::json ReportJson(const pjrt_bench::CompileCheckReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const pjrt_bench::CompileCheckRow& row : report.rows) {
    rows.push_back(
        {{"benchmark", row.benchmark},
         {"point", row.point},
         {"replicas", row.replicas},
         {"compiled", row.error.empty()},
         {"error", row.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.error)},
         {"generated_code_bytes", OrNull(row.generated_code_bytes)},
         {"argument_bytes", OrNull(row.argument_bytes)},
         {"output_bytes", OrNull(row.output_bytes)},
         {"temp_bytes", OrNull(row.temp_bytes)},
         {"flops", OrNull(row.flops)}});
  }
  return {{"plugin", report.plugin},
          {"topology", report.topology},
          {"platform", report.platform},
          {"device_kind", report.device_kind},
          {"devices", report.devices},
          {"failures", report.failures()},
          {"programs", rows}};
}

}  // namespace

int RunBenchCompileCheck(const BenchCompileOptions& options, std::ostream& out, std::ostream& err) {
  if (options.topology.empty()) {
    err << "xpuperf bench compile-check: --topology is required (e.g. v5e:2x2, v4:2x2x1)\n";
    return kExitUsage;
  }
  Result<pjrt_bench::CompileCheckReport> checked =
      pjrt_bench::CompileCheck(options.plugin, options.topology);
  if (!checked.ok()) {
    err << "xpuperf bench compile-check: " << checked.error().message << "\n";
    return kExitFailure;
  }
  const pjrt_bench::CompileCheckReport& report = *checked;
  if (options.json) {
    out << ReportJson(report).dump(2) << "\n";
    return report.failures() == 0 ? kExitOk : kExitFailure;
  }
  render::TextTable table(
      fmt::format("Compiled for {} ({} x {}, platform {}) by {}: nothing ran", report.topology,
                  report.devices, report.device_kind.empty() ? "devices" : report.device_kind,
                  report.platform, report.plugin),
      {{"benchmark"},
       {"point"},
       {"replicas", render::TextTable::Align::kRight},
       {"result"},
       {"code", render::TextTable::Align::kRight},
       {"temp", render::TextTable::Align::kRight},
       {"GFLOP", render::TextTable::Align::kRight}});
  for (const pjrt_bench::CompileCheckRow& row : report.rows) {
    table.AddRow({row.benchmark, row.point, std::to_string(row.replicas),
                  row.error.empty() ? "compiled" : row.error, BytesOrDash(row.generated_code_bytes),
                  BytesOrDash(row.temp_bytes),
                  row.flops ? fmt::format("{:.3f}", *row.flops / 1e9) : "-"});
  }
  out << table.Render(70);
  out << fmt::format("{} of {} programs compiled; GFLOP is XLA's cost analysis per execution\n",
                     report.rows.size() - static_cast<size_t>(report.failures()),
                     report.rows.size());
  return report.failures() == 0 ? kExitOk : kExitFailure;
}

}  // namespace xpuperf::bench_commands

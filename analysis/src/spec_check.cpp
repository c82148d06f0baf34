#include "xpuperf/analysis/spec_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "xpuperf/bench/figures.h"
#include "xpuperf/core/json.h"

namespace xpuperf::analysis {
namespace {

using bench::ResultRecord;

constexpr std::string_view kTensorSuffix = "_tensor";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The records of the run that are figures of `kind` (bench/figures.h: the gpu_* benchmarks count
// like their CPU namesakes), of the run's device (bench::FigureDeviceId), with their scope.
std::vector<std::pair<const ResultRecord*, std::string>> FiguresOf(
    const bench::ResultDirectory& run, bench::FigureKind kind) {
  const std::string device_id = bench::FigureDeviceId(run.records);
  std::vector<std::pair<const ResultRecord*, std::string>> figures;
  for (const ResultRecord& r : run.records) {
    if (!bench::OnFigureDevice(r.device_id, device_id)) continue;
    const std::optional<bench::Figure> figure = bench::ClassifyRecord(r.measurement);
    if (figure && figure->kind == kind) figures.emplace_back(&r, figure->scope);
  }
  return figures;
}

// A measurement in base units with where it came from.
struct Best {
  double value = 0;
  const ResultRecord* record = nullptr;
};

std::string Origin(const ResultRecord& r) {
  const std::string parameters = FormatParameters(r.measurement.parameters);
  return fmt::format("{}{}{} (results.jsonl line {})", r.measurement.benchmark,
                     parameters.empty() ? "" : " ", parameters, r.line);
}

std::optional<double> BaseValue(const ResultRecord& r) {
  const std::optional<double> scale = ThroughputUnitScale(r.measurement.unit);
  if (!scale) return std::nullopt;
  return r.measurement.value * *scale;
}

// The best figure: a stable record always beats an unstable one, then the higher value wins.
void Consider(std::optional<Best>& best, const ResultRecord& r) {
  const std::optional<double> value = BaseValue(r);
  if (!value) return;
  const bool stable = r.measurement.stable;
  if (!best) {
    best = Best{*value, &r};
    return;
  }
  const bool best_stable = best->record->measurement.stable;
  if ((stable && !best_stable) || (stable == best_stable && *value > best->value)) {
    best = Best{*value, &r};
  }
}

// The precisions in the order users read them; others follow alphabetically.
int PrecisionRank(const std::string& precision) {
  static const std::vector<std::string> kOrder = {"fp64", "fp32", "tf32", "bf16",
                                                  "fp16", "fp8",  "int8"};
  auto it = std::find(kOrder.begin(), kOrder.end(), precision);
  return it == kOrder.end() ? static_cast<int>(kOrder.size())
                            : static_cast<int>(it - kOrder.begin());
}

std::optional<double> MessageBytes(const nlohmann::json& parameters) {
  for (const char* key : {"bytes", "message_bytes", "size_bytes"}) {
    auto it = parameters.find(key);
    if (it != parameters.end() && it->is_number()) return it->get<double>();
  }
  return std::nullopt;
}

// The first skip reason of the run that mentions `needle`, e.g. "\"precision\":\"bf16\"".
std::string SkipReason(const std::vector<std::string>& skipped, const std::string& needle) {
  for (const std::string& entry : skipped) {
    if (entry.find(needle) != std::string::npos) return "skipped: " + entry;
  }
  return {};
}

CheckRow MakeRow(std::string component, std::string metric, std::string unit,
                 const std::optional<Best>& best, std::optional<double> spec, std::string spec_from,
                 double threshold) {
  CheckRow row;
  row.component = std::move(component);
  row.metric = std::move(metric);
  row.unit = std::move(unit);
  row.threshold_percent = threshold;
  row.spec_from = std::move(spec_from);
  if (best) {
    row.measured = best->value;
    row.measured_from = Origin(*best->record);
  }
  if (spec && *spec > 0) row.spec = spec;
  if (!row.measured) {
    row.verdict = CheckVerdict::kNotMeasured;
  } else if (!best->record->measurement.stable) {
    if (row.spec) row.achieved_percent = 100 * *row.measured / *row.spec;
    row.verdict = CheckVerdict::kUnstable;
    const auto& reasons = best->record->measurement.unstable_reasons;
    row.measured_from +=
        "; unstable, not judged: " + (reasons.empty() ? std::string("marked") : reasons.front());
  } else if (!row.spec) {
    row.verdict = CheckVerdict::kNoSpec;
  } else {
    row.achieved_percent = 100 * *row.measured / *row.spec;
    row.verdict = *row.achieved_percent >= threshold ? CheckVerdict::kPass : CheckVerdict::kFail;
  }
  return row;
}

// One compute row: `best` against the sheet's peak `key` (none when the sheet lacks it).
CheckRow ComputeRow(const bench::ResultDirectory& run, const spec::SpecSheet& sheet,
                    const std::string& precision, const std::string& label,
                    const std::optional<Best>& best, const std::string& key,
                    const std::string& benchmarks, double threshold) {
  std::optional<double> spec;
  std::string spec_from = "the sheet has no " + precision + " peak";
  if (auto it = sheet.peak_flops_per_second.find(key); it != sheet.peak_flops_per_second.end()) {
    spec = it->second;
    auto source = sheet.peak_sources.find(key);
    spec_from = fmt::format("peak_flops_per_second.{}: {}", key,
                            source != sheet.peak_sources.end() ? source->second : sheet.source);
  }
  CheckRow row = MakeRow("compute", label, "FLOP/s", best, spec, spec_from, threshold);
  if (!best) {
    row.measured_from = SkipReason(run.skipped, fmt::format("\"precision\":\"{}\"", precision));
    if (row.measured_from.empty()) {
      row.measured_from = fmt::format("no {} record of {}_flops", benchmarks, precision);
    }
  }
  return row;
}

void AddComputeRows(const bench::ResultDirectory& run, const spec::SpecSheet& sheet,
                    double threshold, std::vector<CheckRow>& rows) {
  // Per precision: the best of peak_fma (vector units), of gemm (matrix units where the device
  // has them) and of both.
  std::map<std::string, std::optional<Best>> vector_best, gemm_best, any_best;
  for (bench::FigureKind kind :
       {bench::FigureKind::kComputePeak, bench::FigureKind::kComputeGemm}) {
    for (const auto& [r, precision] : FiguresOf(run, kind)) {
      Consider(
          kind == bench::FigureKind::kComputeGemm ? gemm_best[precision] : vector_best[precision],
          *r);
      Consider(any_best[precision], *r);
    }
  }
  std::set<std::string> precisions;
  for (const auto& [precision, best] : any_best) {
    if (best) precisions.insert(precision);
  }
  for (const auto& [key, peak] : sheet.peak_flops_per_second) {
    precisions.insert(
        EndsWith(key, kTensorSuffix) ? key.substr(0, key.size() - kTensorSuffix.size()) : key);
  }
  std::vector<std::string> ordered(precisions.begin(), precisions.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const std::string& a, const std::string& b) {
    return PrecisionRank(a) < PrecisionRank(b);
  });
  const auto& peaks = sheet.peak_flops_per_second;
  for (const std::string& precision : ordered) {
    const std::string tensor = precision + std::string(kTensorSuffix);
    if (peaks.count(precision) && peaks.count(tensor)) {
      // Separate vector and matrix rates (fp64 on Hopper): peak_fma against the vector peak, gemm
      // against the matrix one.
      rows.push_back(ComputeRow(run, sheet, precision, precision + " FLOP/s",
                                vector_best[precision], precision, "peak_fma", threshold));
      rows.push_back(ComputeRow(run, sheet, precision, precision + " tensor FLOP/s",
                                gemm_best[precision], tensor, "gemm", threshold));
    } else {
      rows.push_back(ComputeRow(run, sheet, precision, precision + " FLOP/s", any_best[precision],
                                peaks.count(precision) ? precision : tensor, "peak_fma or gemm",
                                threshold));
    }
  }
  if (ordered.empty()) {
    rows.push_back(MakeRow("compute", "FLOP/s", "FLOP/s", std::nullopt, std::nullopt,
                           "the sheet has no peak", threshold));
    rows.back().measured_from = "no peak_fma or gemm record";
  }
}

void AddMemoryRow(const bench::ResultDirectory& run, const spec::SpecSheet& sheet, double threshold,
                  std::vector<CheckRow>& rows) {
  std::optional<Best> best;
  for (const auto& [r, scope] : FiguresOf(run, bench::FigureKind::kMainMemory)) Consider(best, *r);
  std::optional<double> spec;
  std::string spec_from;
  if (sheet.memory_bandwidth_bytes_per_second > 0) {
    spec = sheet.memory_bandwidth_bytes_per_second;
    spec_from = "memory.bandwidth_bytes_per_second: " +
                (sheet.memory_source.empty() ? sheet.source : sheet.memory_source);
  } else {
    spec_from = "memory: unknown" + (sheet.memory_unknown_reason.empty()
                                         ? std::string()
                                         : " (" + sheet.memory_unknown_reason + ")");
  }
  CheckRow row = MakeRow("memory", "triad bandwidth", "B/s", best, spec, spec_from, threshold);
  if (!best) row.measured_from = "no stream triad_bandwidth record";
  rows.push_back(std::move(row));
}

std::string LinkSource(const spec::LinkBandwidth& link, std::string_view field,
                       const spec::SpecSheet& sheet) {
  return fmt::format("{}{}{}: {}", field, link.name.empty() ? "" : " ", link.name,
                     link.source.empty() ? sheet.source : link.source);
}

void AddNetworkRows(const bench::ResultDirectory& run, const spec::SpecSheet& sheet,
                    double threshold, std::vector<CheckRow>& rows) {
  // Per op: the records at the largest message size, best busbw among them.
  struct OpBest {
    double message_bytes = -1;
    std::optional<Best> best;
  };
  std::map<std::string, OpBest> ops;
  std::vector<std::string> order;
  for (const auto& [r, op] : FiguresOf(run, bench::FigureKind::kNetwork)) {
    if (!BaseValue(*r)) continue;
    if (!ops.count(op)) order.push_back(op);
    OpBest& entry = ops[op];
    const double bytes = MessageBytes(r->measurement.parameters).value_or(0);
    if (bytes > entry.message_bytes) {
      entry.message_bytes = bytes;
      entry.best.reset();
    }
    if (bytes == entry.message_bytes) Consider(entry.best, *r);
  }
  std::optional<double> spec;
  std::string spec_from = "the sheet has no network link";
  if (sheet.network_link) {
    spec = sheet.network_link->tx_bytes_per_second;
    spec_from = LinkSource(*sheet.network_link, "network_link.tx_bytes_per_second", sheet);
  }
  if (order.empty()) {
    CheckRow row = MakeRow("network", "busbw", "B/s", std::nullopt, spec, spec_from, threshold);
    row.measured_from = "no collective <op>_busbw record";
    rows.push_back(std::move(row));
    return;
  }
  for (const std::string& op : order) {
    rows.push_back(
        MakeRow("network", op + " busbw", "B/s", ops[op].best, spec, spec_from, threshold));
  }
}

void AddHostTransferRows(const bench::ResultDirectory& run, const spec::SpecSheet& sheet,
                         double threshold, std::vector<CheckRow>& rows) {
  struct Direction {
    const char* scope;
    const char* metric;
    const char* label;
    bool towards_device;
  };
  const auto links = FiguresOf(run, bench::FigureKind::kHostLink);
  for (const Direction& d : {Direction{"h2d", "h2d_bandwidth", "h2d bandwidth", true},
                             Direction{"d2h", "d2h_bandwidth", "d2h bandwidth", false}}) {
    std::optional<Best> best;
    for (const auto& [r, scope] : links) {
      if (scope == d.scope) Consider(best, *r);
    }
    std::optional<double> spec;
    std::string spec_from = "the sheet has no host link";
    if (sheet.host_link) {
      spec = d.towards_device ? sheet.host_link->rx_bytes_per_second
                              : sheet.host_link->tx_bytes_per_second;
      spec_from = LinkSource(
          *sheet.host_link,
          d.towards_device ? "host_link.rx_bytes_per_second" : "host_link.tx_bytes_per_second",
          sheet);
    }
    CheckRow row = MakeRow("host_transfer", d.label, "B/s", best, spec, spec_from, threshold);
    if (!best) row.measured_from = std::string("no ") + d.metric + " record";
    rows.push_back(std::move(row));
  }
}

}  // namespace

std::string_view CheckVerdictName(CheckVerdict verdict) {
  switch (verdict) {
    case CheckVerdict::kPass:
      return "PASS";
    case CheckVerdict::kFail:
      return "FAIL";
    case CheckVerdict::kNoSpec:
      return "no spec";
    case CheckVerdict::kNotMeasured:
      return "not measured";
    case CheckVerdict::kUnstable:
      return "UNSTABLE";
  }
  return "?";
}

bool CheckReport::Passed() const {
  return std::none_of(rows.begin(), rows.end(),
                      [](const CheckRow& row) { return row.verdict == CheckVerdict::kFail; });
}

std::optional<double> ThroughputUnitScale(std::string_view unit) {
  static const std::map<std::string, double, std::less<>> kScales = {{"FLOP/s", 1},
                                                                     {"KFLOP/s", 1e3},
                                                                     {"MFLOP/s", 1e6},
                                                                     {"GFLOP/s", 1e9},
                                                                     {"TFLOP/s", 1e12},
                                                                     {"PFLOP/s", 1e15},
                                                                     {"OP/s", 1},
                                                                     {"GOP/s", 1e9},
                                                                     {"TOP/s", 1e12},
                                                                     {"B/s", 1},
                                                                     {"bytes/s", 1},
                                                                     {"KB/s", 1e3},
                                                                     {"MB/s", 1e6},
                                                                     {"GB/s", 1e9},
                                                                     {"TB/s", 1e12},
                                                                     {"KiB/s", 1024.0},
                                                                     {"MiB/s", 1048576.0},
                                                                     {"GiB/s", 1073741824.0},
                                                                     {"TiB/s", 1099511627776.0}};
  auto it = kScales.find(unit);
  if (it == kScales.end()) return std::nullopt;
  return it->second;
}

std::string FormatParameters(const nlohmann::json& parameters) {
  std::string text;
  if (!parameters.is_object()) return text;
  for (auto it = parameters.begin(); it != parameters.end(); ++it) {
    std::string value;
    if (it->is_string()) {
      value = it->get<std::string>();
    } else if (it->is_number_float() && std::abs(it->get<double>()) < 1e15 &&
               it->get<double>() == std::trunc(it->get<double>())) {
      value = fmt::format("{:.0f}", it->get<double>());  // 75497472.0 -> 75497472
    } else {
      value = it->dump();
    }
    text += (text.empty() ? "" : " ") + it.key() + "=" + value;
  }
  return text;
}

CheckReport CheckAgainstSpec(const bench::ResultDirectory& run, const spec::SpecSheet& sheet,
                             const CheckThresholds& thresholds) {
  CheckReport report;
  report.sheet_device = sheet.device;
  report.sheet_source = sheet.computed ? "computed from this machine" : sheet.file;
  report.run_device = run.device.model;
  AddComputeRows(run, sheet, thresholds.compute, report.rows);
  AddMemoryRow(run, sheet, thresholds.memory, report.rows);
  AddNetworkRows(run, sheet, thresholds.network, report.rows);
  AddHostTransferRows(run, sheet, thresholds.host_transfer, report.rows);
  return report;
}

nlohmann::json ToJson(const CheckReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  const auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  for (const CheckRow& row : report.rows) {
    rows.push_back({{"component", row.component},
                    {"metric", row.metric},
                    {"unit", row.unit},
                    {"measured", optional(row.measured)},
                    {"spec", optional(row.spec)},
                    {"achieved_percent", optional(row.achieved_percent)},
                    {"threshold_percent", row.threshold_percent},
                    {"verdict", CheckVerdictName(row.verdict)},
                    {"measured_from", row.measured_from},
                    {"spec_from", row.spec_from}});
  }
  return {{"json_schema_version", kJsonSchemaVersion},
          {"sheet_device", report.sheet_device},
          {"sheet_source", report.sheet_source},
          {"run_device", report.run_device},
          {"passed", report.Passed()},
          {"rows", rows}};
}

}  // namespace xpuperf::analysis

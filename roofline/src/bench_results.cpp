#include "xpuperf/roofline/bench_results.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <optional>

#include "xpuperf/bench/figures.h"
#include "xpuperf/bench/result_reader.h"

namespace xpuperf::roofline {
namespace {

std::string StringField(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double NumberField(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

BenchRecord FromMeasurement(const bench::Measurement& m) {
  BenchRecord record;
  record.benchmark = m.benchmark;
  record.metric = m.metric;
  record.value = m.value;
  record.unit = m.unit;
  record.parameters = m.parameters.is_object() ? m.parameters : nlohmann::json::object();
  record.median_seconds = m.statistics.median;
  record.cv = m.statistics.cv;
  record.samples = m.statistics.count;
  record.formula = m.formula;
  record.nominal_peak = m.nominal_peak;
  record.nominal_source = m.nominal_source;
  record.stable = m.stable;
  if (!m.unstable_reasons.empty()) record.unstable_reason = m.unstable_reasons.front();
  return record;
}

}  // namespace

std::optional<double> UnitToBase(std::string_view unit) {
  struct Entry {
    std::string_view unit;
    double factor;
  };
  static constexpr Entry kUnits[] = {
      {"FLOP/s", 1}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"B/s", 1},     {"bytes/s", 1},
      {"GB/s", 1e9}, {"TB/s", 1e12},   {"s", 1},          {"ms", 1e-3},   {"us", 1e-6},
      {"ns", 1e-9},  {"MB/s", 1e6},    {"GOP/s", 1e9},    {"TOP/s", 1e12}};
  for (const Entry& entry : kUnits) {
    if (entry.unit == unit) return entry.factor;
  }
  return std::nullopt;
}

BenchResults FromResultDirectory(const bench::ResultDirectory& run) {
  BenchResults results;
  results.directory = run.path;
  // The records' own device and run fields first, then environment.json's. The device is the
  // one whose figures the roofline draws (bench::FigureDeviceId: the first accelerator of a run
  // that has one), so the title names the device of the ceilings.
  const std::string figure_device = bench::FigureDeviceId(run.records);
  for (const bench::ResultRecord& r : run.records) {
    if (results.run_id.empty()) results.run_id = r.run_id;
    if (results.host.empty()) results.host = r.host;
    if (bench::OnFigureDevice(r.device_id, figure_device)) {
      if (results.backend.empty()) results.backend = r.device_backend;
      if (results.device_model.empty()) results.device_model = r.device_model;
    }
    BenchRecord record = FromMeasurement(r.measurement);
    record.device_backend = r.device_backend;
    record.device_id = r.device_id;
    results.records.push_back(std::move(record));
  }
  results.environment = run.environment;
  const nlohmann::json& env = run.environment;
  if (results.run_id.empty()) results.run_id = StringField(env, "run_id");
  if (results.host.empty()) results.host = StringField(env, "host");
  if (auto it = env.find("device"); it != env.end() && it->is_object()) {
    if (results.backend.empty()) results.backend = StringField(*it, "backend");
    if (results.device_model.empty()) results.device_model = StringField(*it, "model");
    results.device_memory_bytes = NumberField(*it, "memory_bytes");
  }
  results.skipped = run.skipped;
  return results;
}

namespace {

Result<BenchResults> NonEmpty(BenchResults results, std::string_view source) {
  if (results.records.empty()) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("{}/results.jsonl holds no measurements", source));
  }
  return results;
}

}  // namespace

Result<BenchResults> ParseBenchResults(std::string_view results_jsonl,
                                       std::string_view environment_json, std::string_view source) {
  std::optional<std::string> environment;
  if (!environment_json.empty()) environment = std::string(environment_json);
  XPUPERF_ASSIGN_OR_RETURN(
      const bench::ResultDirectory run,
      bench::ParseResultDirectory(results_jsonl, environment, std::string(source)));
  BenchResults results = FromResultDirectory(run);
  results.directory.clear();  // parsed from text, not read from a directory
  return NonEmpty(std::move(results), source);
}

Result<BenchResults> ReadBenchResults(const std::string& directory) {
  namespace fs = std::filesystem;
  const fs::path dir(directory);
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return MakeError(ErrorCode::kNotFound, directory + " is not a benchmark result directory");
  }
  if (!fs::exists(dir / "results.jsonl", error)) {
    return MakeError(ErrorCode::kNotFound,
                     directory + " has no results.jsonl (run `xpuperf bench run --out DIR` first)");
  }
  XPUPERF_ASSIGN_OR_RETURN(const bench::ResultDirectory run, bench::ReadResultDirectory(directory));
  return NonEmpty(FromResultDirectory(run), directory);
}

}  // namespace xpuperf::roofline

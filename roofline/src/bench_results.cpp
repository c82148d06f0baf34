#include "xpuperf/roofline/bench_results.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::roofline {
namespace {

Result<std::string> ReadText(const std::filesystem::path& path) {
  // Regular files only, bounded (xpuperf/core/input_file.h): a FIFO here must not block.
  return ReadInputFile(path.string(), uint64_t{1} << 30);
}

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

Result<BenchResults> ParseBenchResults(std::string_view results_jsonl,
                                       std::string_view environment_json, std::string_view source) {
  BenchResults results;
  XPUPERF_ASSIGN_OR_RETURN(
      std::vector<bench::ResultRecord> records,
      bench::ParseResultsJsonl(results_jsonl, fmt::format("{}/results.jsonl", source)));
  for (const bench::ResultRecord& r : records) {
    if (results.run_id.empty()) results.run_id = r.run_id;
    if (results.host.empty()) results.host = r.host;
    if (results.backend.empty()) results.backend = r.device_backend;
    if (results.device_model.empty()) results.device_model = r.device_model;
    BenchRecord record = FromMeasurement(r.measurement);
    record.device_backend = r.device_backend;
    record.device_id = r.device_id;
    results.records.push_back(std::move(record));
  }
  results.environment = nlohmann::json::object();
  if (!environment_json.empty()) {
    nlohmann::json env = nlohmann::json::parse(environment_json, nullptr, false);
    if (env.is_discarded() || !env.is_object()) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("{}/environment.json: not a JSON object", source));
    }
    results.environment = env;
    if (results.run_id.empty()) results.run_id = StringField(env, "run_id");
    if (results.host.empty()) results.host = StringField(env, "host");
    if (auto it = env.find("device"); it != env.end() && it->is_object()) {
      if (results.backend.empty()) results.backend = StringField(*it, "backend");
      if (results.device_model.empty()) results.device_model = StringField(*it, "model");
      results.device_memory_bytes = NumberField(*it, "memory_bytes");
    }
    if (auto it = env.find("skipped"); it != env.end() && it->is_array()) {
      for (const auto& entry : *it) {
        if (entry.is_string()) results.skipped.push_back(entry.get<std::string>());
      }
    }
  }
  if (results.records.empty()) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("{}/results.jsonl holds no measurements", source));
  }
  return results;
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
  XPUPERF_ASSIGN_OR_RETURN(std::string jsonl, ReadText(dir / "results.jsonl"));
  std::string environment;
  if (fs::exists(dir / "environment.json", error)) {
    XPUPERF_ASSIGN_OR_RETURN(environment, ReadText(dir / "environment.json"));
  }
  XPUPERF_ASSIGN_OR_RETURN(BenchResults results, ParseBenchResults(jsonl, environment, directory));
  results.directory = directory;
  return results;
}

}  // namespace xpuperf::roofline

#include "xpuperf/bench/result_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "xpuperf/core/error_context.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::bench {
namespace {

using nlohmann::json;

Error LineError(std::string_view file, int line, const std::string& what) {
  return MakeError(ErrorCode::kParse, fmt::format("{}:{}: {}", file, line, what));
}

std::string TextField(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double NumberField(const json& object, const char* key, double fallback = 0) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

// A count or size: numbers outside [0, 2^53] (or not numbers) read as `fallback`, so a hostile
// file cannot make a cast overflow.
template <typename Int>
Int CountField(const json& object, const char* key, Int fallback = 0) {
  const double value = NumberField(object, key, static_cast<double>(fallback));
  if (!(value >= 0 && value <= 9007199254740992.0)) return fallback;
  const double limit = static_cast<double>(std::numeric_limits<Int>::max());
  return value > limit ? fallback : static_cast<Int>(value);
}

Result<std::string> RequiredText(const json& record, const char* key, std::string_view file,
                                 int line) {
  auto it = record.find(key);
  if (it == record.end() || !it->is_string() || it->get<std::string>().empty()) {
    return LineError(file, line, fmt::format("missing text field '{}'", key));
  }
  return it->get<std::string>();
}

SampleStatistics StatisticsFromJson(const json& statistics) {
  SampleStatistics s;
  s.count = CountField<int>(statistics, "count");
  s.min = NumberField(statistics, "min");
  s.median = NumberField(statistics, "median");
  s.mean = NumberField(statistics, "mean");
  s.p90 = NumberField(statistics, "p90");
  s.p99 = NumberField(statistics, "p99");
  s.max = NumberField(statistics, "max");
  s.stddev = NumberField(statistics, "stddev");
  s.cv = NumberField(statistics, "cv");
  s.robust_cv = NumberField(statistics, "robust_cv");
  return s;
}

Result<ResultRecord> RecordFromJson(const json& record, std::string_view file, int line) {
  if (!record.is_object()) return LineError(file, line, "a record is a JSON object");
  if (auto version = record.find("json_schema_version"); version != record.end()) {
    if (!version->is_number_integer()) {
      return LineError(file, line, "'json_schema_version' is not an integer");
    }
    if (version->get<int>() > kResultSchemaVersion) {
      return LineError(file, line,
                       fmt::format("json_schema_version {} is newer than this xpuperf reads ({})",
                                   version->get<int>(), kResultSchemaVersion));
    }
  }
  ResultRecord out;
  out.line = line;
  Measurement& m = out.measurement;
  XPUPERF_ASSIGN_OR_RETURN(m.benchmark, RequiredText(record, "benchmark", file, line));
  XPUPERF_ASSIGN_OR_RETURN(m.metric, RequiredText(record, "metric", file, line));
  XPUPERF_ASSIGN_OR_RETURN(m.unit, RequiredText(record, "unit", file, line));
  auto value = record.find("value");
  if (value == record.end() || !value->is_number() || !std::isfinite(value->get<double>())) {
    return LineError(file, line, "'value' is missing or not a number");
  }
  m.value = value->get<double>();
  if (auto parameters = record.find("parameters"); parameters != record.end()) {
    if (!parameters->is_object()) return LineError(file, line, "'parameters' is not an object");
    m.parameters = *parameters;
  }
  if (auto samples = record.find("samples_s"); samples != record.end() && !samples->is_null()) {
    if (!samples->is_array()) return LineError(file, line, "'samples_s' is not an array");
    for (size_t i = 0; i < samples->size(); ++i) {
      const json& sample = (*samples)[i];
      if (!sample.is_number() || !std::isfinite(sample.get<double>())) {
        return LineError(file, line, fmt::format("samples_s[{}] is not a number", i));
      }
      m.sample_seconds.push_back(sample.get<double>());
    }
  }
  if (auto statistics = record.find("statistics");
      statistics != record.end() && statistics->is_object()) {
    m.statistics = StatisticsFromJson(*statistics);
  } else {
    m.statistics = ComputeStatistics(m.sample_seconds);
  }
  m.repetitions_per_sample = CountField<int64_t>(record, "repetitions_per_sample", 1);
  m.flops_per_repetition = NumberField(record, "flops_per_repetition");
  m.bytes_per_repetition = NumberField(record, "bytes_per_repetition");
  m.formula = TextField(record, "formula");
  if (auto nominal = record.find("nominal_peak"); nominal != record.end() && nominal->is_number()) {
    m.nominal_peak = nominal->get<double>();
  }
  m.nominal_source = TextField(record, "nominal_source");
  m.timing_source = TextField(record, "timing_source");
  // Files written before runs were judged have no "stable": their points count as stable.
  if (auto stable = record.find("stable"); stable != record.end() && !stable->is_null()) {
    if (!stable->is_boolean()) return LineError(file, line, "'stable' is not true or false");
    m.stable = stable->get<bool>();
  }
  if (auto reasons = record.find("unstable_reasons");
      reasons != record.end() && !reasons->is_null()) {
    if (!reasons->is_array()) return LineError(file, line, "'unstable_reasons' is not an array");
    for (const json& reason : *reasons) {
      if (!reason.is_string()) {
        return LineError(file, line, "'unstable_reasons' holds something other than text");
      }
      m.unstable_reasons.push_back(reason.get<std::string>());
    }
  }
  if (!m.stable && m.unstable_reasons.empty()) m.unstable_reasons.push_back("marked unstable");
  if (auto load = record.find("machine_load"); load != record.end()) m.machine_load = *load;
  if (auto device = record.find("device"); device != record.end() && device->is_object()) {
    out.device_backend = TextField(*device, "backend");
    out.device_model = TextField(*device, "model");
    out.device_id = TextField(*device, "id");
  }
  out.host = TextField(record, "host");
  out.run_id = TextField(record, "run_id");
  out.time = TextField(record, "time");
  return out;
}

Device DeviceFromJson(const json& j) {
  Device device;
  device.backend = TextField(j, "backend");
  device.id = TextField(j, "id");
  device.index = CountField<int>(j, "index");
  device.vendor = TextField(j, "vendor");
  device.model = TextField(j, "model");
  device.uuid = TextField(j, "uuid");
  device.bus_id = TextField(j, "bus_id");
  device.memory_bytes = CountField<uint64_t>(j, "memory_bytes");
  if (auto features = j.find("features"); features != j.end() && features->is_array()) {
    for (const json& feature : *features) {
      if (feature.is_string()) device.features.push_back(feature.get<std::string>());
    }
  }
  if (auto topology = j.find("topology"); topology != j.end() && topology->is_object()) {
    Topology& t = device.topology;
    t.packages = CountField<int>(*topology, "packages");
    t.numa_nodes = CountField<int>(*topology, "numa_nodes");
    t.cores = CountField<int>(*topology, "cores");
    t.threads = CountField<int>(*topology, "threads");
    t.source = TextField(*topology, "source");
    if (auto caches = topology->find("caches"); caches != topology->end() && caches->is_array()) {
      for (const json& c : *caches) {
        if (!c.is_object()) continue;
        CacheLevel level;
        level.level = CountField<int>(c, "level");
        level.type = TextField(c, "type");
        level.size_bytes = CountField<uint64_t>(c, "size_bytes");
        level.instances = CountField<int>(c, "instances");
        level.line_bytes = CountField<int>(c, "line_bytes");
        t.caches.push_back(level);
      }
    }
  }
  return device;
}

// Far beyond any run (a record is ~2 KB): a bound, so a huge or endless file is refused.
constexpr uint64_t kMaxResultFileBytes = uint64_t{1} << 30;

Result<std::string> ReadText(const std::filesystem::path& path) {
  return ReadInputFile(path.string(), kMaxResultFileBytes);
}

}  // namespace

Result<std::vector<ResultRecord>> ParseResultsJsonl(std::string_view text,
                                                    std::string_view file_name) {
  std::vector<ResultRecord> records;
  std::unordered_map<std::string, int> seen;  // identity of a record -> its line
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const json record = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded()) return LineError(file_name, line_number, "not valid JSON");
    XPUPERF_ASSIGN_OR_RETURN(ResultRecord parsed, RecordFromJson(record, file_name, line_number));
    // The same measurement twice (a file appended to itself, two runs merged by hand) would be
    // counted twice by compare and check: refuse it, naming both lines.
    std::string key = parsed.run_id + '\x1f' + parsed.device_id + '\x1f' +
                      parsed.measurement.benchmark + '\x1f' + parsed.measurement.metric + '\x1f' +
                      parsed.measurement.parameters.dump();
    if (auto [at, inserted] = seen.emplace(std::move(key), line_number); !inserted) {
      return LineError(file_name, line_number,
                       fmt::format("duplicates the record of line {} (same run, device, benchmark, "
                                   "metric and parameters)",
                                   at->second));
    }
    records.push_back(std::move(parsed));
  }
  return records;
}

Result<ResultDirectory> ReadResultDirectory(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path dir(directory);
  if (Status is_dir = CheckInputDirectory(directory); !is_dir.ok()) {
    if (is_dir.error().code == ErrorCode::kNotFound) {
      return MakeError(ErrorCode::kNotFound, fmt::format("no result directory {}", directory));
    }
    return WithContext(is_dir.error(), "not a result directory");
  }
  const fs::path results = dir / "results.jsonl";
  if (fs::symlink_status(results, error).type() == fs::file_type::not_found) {
    return MakeError(
        ErrorCode::kNotFound,
        fmt::format("{} is not a result directory: it has no results.jsonl", directory));
  }
  XPUPERF_ASSIGN_OR_RETURN(const std::string text, ReadText(results));
  std::optional<std::string> env_text;
  const fs::path environment = dir / "environment.json";
  if (fs::exists(environment, error)) {
    XPUPERF_ASSIGN_OR_RETURN(env_text, ReadText(environment));
  }
  return ParseResultDirectory(text, env_text, directory);
}

Result<ResultDirectory> ParseResultDirectory(std::string_view results_jsonl,
                                             const std::optional<std::string>& environment_json,
                                             const std::string& directory) {
  namespace fs = std::filesystem;
  const fs::path dir(directory);
  ResultDirectory out;
  out.path = directory;
  XPUPERF_ASSIGN_OR_RETURN(out.records,
                           ParseResultsJsonl(results_jsonl, (dir / "results.jsonl").string()));
  if (environment_json) {
    json env = json::parse(*environment_json, nullptr, /*allow_exceptions=*/false);
    if (env.is_discarded() || !env.is_object()) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("{}: not a JSON object", (dir / "environment.json").string()));
    }
    out.environment = std::move(env);
  }
  const json& env = out.environment;
  if (auto device = env.find("device"); device != env.end() && device->is_object()) {
    out.device = DeviceFromJson(*device);
  } else if (!out.records.empty()) {
    out.device.backend = out.records.front().device_backend;
    out.device.model = out.records.front().device_model;
    out.device.id = out.records.front().device_id;
  }
  out.run_id = TextField(env, "run_id");
  out.host = TextField(env, "host");
  out.suite = TextField(env, "suite");
  if (!out.records.empty()) {
    if (out.run_id.empty()) out.run_id = out.records.front().run_id;
    if (out.host.empty()) out.host = out.records.front().host;
  }
  auto strings = [&env](const char* key, std::vector<std::string>& into) {
    if (auto list = env.find(key); list != env.end() && list->is_array()) {
      for (const json& entry : *list) {
        if (entry.is_string()) into.push_back(entry.get<std::string>());
      }
    }
  };
  strings("skipped", out.skipped);
  if (auto partial = env.find("partial"); partial != env.end() && partial->is_boolean())
    out.partial = partial->get<bool>();
  strings("points_done", out.points_done);
  strings("points_pending", out.points_pending);
  return out;
}

std::string PartialRunNote(const ResultDirectory& run, std::string_view command) {
  if (!run.partial) return {};
  return fmt::format(
      "{}: note: {} is a partial run: a stop request ended it after {} points ({} not run{}); its "
      "figures are what ran. `xpuperf bench run --resume {}` runs the rest\n",
      command, run.path, run.points_done.size(), run.points_pending.size(),
      run.points_pending.empty() ? "" : ", first: " + run.points_pending.front(), run.path);
}

}  // namespace xpuperf::bench

// A benchmark result directory as the roofline sees it: a flat view of the one model of a result
// directory (bench::ResultDirectory, bench/result_reader.h), reduced to what the roofline uses.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/status.h"

namespace xpuperf::roofline {

// One results.jsonl line: the fields the roofline and the report use, values exactly as written.
struct BenchRecord {
  std::string benchmark;  // "peak_fma"
  std::string metric;     // "fp64_flops", "triad_bandwidth", "L1_read_bandwidth"
  double value = 0;       // in unit, from the median sample
  std::string unit;       // "GFLOP/s", "GB/s", "us"
  nlohmann::json parameters = nlohmann::json::object();
  double median_seconds = 0;  // statistics.median, seconds per repetition
  double cv = 0;              // statistics.cv
  int64_t samples = 0;        // statistics.count
  std::string formula;
  std::optional<double> nominal_peak;  // in unit
  std::string nominal_source;
  std::string device_backend;   // "cpu", "nvidia", ... of the record's device
  std::string device_id;        // "cpu0", "nvidia0"
  bool stable = true;           // false: the run marked the figure unstable (bench/runner.h)
  std::string unstable_reason;  // the first reason, when unstable
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct BenchResults {
  std::string directory;
  std::vector<BenchRecord> records;  // in file order
  nlohmann::json environment;        // environment.json ({} when the file is absent)
  std::string run_id;
  std::string host;
  std::string backend;  // device.backend of the run ("cpu", "nvidia", "tpu")
  std::string device_model;
  double device_memory_bytes = 0;    // device.memory_bytes of environment.json, 0 when unknown
  std::vector<std::string> skipped;  // points the run could not measure, with the reason
};

// The roofline's view of a run read by bench::ReadResultDirectory / ParseResultDirectory.
BenchResults FromResultDirectory(const bench::ResultDirectory& run);

// Parses the two files' text. kParse names `source` and the line for a malformed record; a record
// without benchmark, metric, a finite value or unit is an error too.
Result<BenchResults> ParseBenchResults(std::string_view results_jsonl,
                                       std::string_view environment_json, std::string_view source);
// Reads DIR/results.jsonl (required: kNotFound when missing) and DIR/environment.json (optional).
Result<BenchResults> ReadBenchResults(const std::string& directory);

// Factor from a record unit to base units (FLOP/s, bytes/s, seconds): "GFLOP/s" -> 1e9,
// "GB/s" -> 1e9, "us" -> 1e-6. nullopt for a unit the roofline does not know.
std::optional<double> UnitToBase(std::string_view unit);

}  // namespace xpuperf::roofline

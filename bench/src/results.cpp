#include "xpuperf/bench/results.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "xpuperf/core/input_file.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/output_directory.h"
#include "xpuperf/core/utc_time.h"
#include "xpuperf/core/version.h"

namespace xpuperf::bench {
namespace {

nlohmann::json StatisticsJson(const SampleStatistics& s) {
  return {{"count", s.count},
          {"min", s.min},
          {"median", s.median},
          {"mean", s.mean},
          {"p90", s.p90},
          {"p99", s.p99},
          {"max", s.max},
          {"stddev", s.stddev},
          {"cv", s.cv},
          {"robust_cv", s.robust_cv},
          {"unit", "s per repetition"}};
}

std::string CsvQuote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.flush();
  if (!file) {
    return MakeError(ErrorCode::kIo,
                     fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
  return Status::Ok();
}

}  // namespace

std::string MakeRunId(int64_t wall_ns, const std::string& host) {
  const time_t seconds = static_cast<time_t>(wall_ns / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%dT%H%M%SZ", &utc);
  return std::string(text) + "-" + host;
}

nlohmann::json MeasurementRecord(const Measurement& m, const RunInfo& run) {
  nlohmann::json record;
  record["json_schema_version"] = kJsonSchemaVersion;
  record["benchmark"] = m.benchmark;
  record["metric"] = m.metric;
  record["value"] = m.value;
  record["unit"] = m.unit;
  record["parameters"] = m.parameters;
  record["statistics"] = StatisticsJson(m.statistics);
  record["samples_s"] = m.sample_seconds;
  record["repetitions_per_sample"] = m.repetitions_per_sample;
  record["flops_per_repetition"] = m.flops_per_repetition;
  record["bytes_per_repetition"] = m.bytes_per_repetition;
  record["formula"] = m.formula;
  record["nominal_peak"] = m.nominal_peak ? nlohmann::json(*m.nominal_peak) : nlohmann::json();
  record["nominal_source"] = m.nominal_source;
  record["timing_source"] = m.timing_source;
  record["stable"] = m.stable;
  record["unstable_reasons"] = m.unstable_reasons;
  record["machine_load"] = m.machine_load;
  const Device& device = m.device ? *m.device : run.device;
  record["device"] = {{"backend", device.backend}, {"model", device.model}, {"id", device.id}};
  record["host"] = run.host;
  record["run_id"] = run.run_id;
  record["suite"] = run.suite;
  record["time"] = UtcTimestamp(run.timestamp_ns);
  record["xpuperf_version"] = kVersion;
  // PerfKit Benchmarker's sample: timestamp in seconds, everything else in metadata.
  record["timestamp"] = static_cast<double>(run.timestamp_ns) / 1e9;
  record["test"] = m.benchmark;
  record["run_uri"] = run.run_id;
  nlohmann::json metadata = m.parameters;
  metadata["median_s"] = m.statistics.median;
  metadata["cv"] = m.statistics.cv;
  metadata["device"] = device.model;
  record["metadata"] = std::move(metadata);
  return record;
}

std::string SummaryCsv(const std::vector<Measurement>& measurements) {
  std::string csv =
      "benchmark,metric,value,unit,median_s,cv,nominal_peak,percent_of_nominal,parameters,stable,"
      "unstable_reasons\n";
  for (const Measurement& m : measurements) {
    const std::string nominal = m.nominal_peak ? fmt::format("{:.6g}", *m.nominal_peak) : "";
    const std::string percent = m.nominal_peak && *m.nominal_peak > 0
                                    ? fmt::format("{:.2f}", 100 * m.value / *m.nominal_peak)
                                    : "";
    std::string reasons;
    for (const std::string& reason : m.unstable_reasons) {
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    csv +=
        fmt::format("{},{},{:.6g},{},{:.6g},{:.4f},{},{},{},{},{}\n", m.benchmark, m.metric,
                    m.value, m.unit, m.statistics.median, m.statistics.cv, nominal, percent,
                    CsvQuote(m.parameters.dump()), m.stable ? "true" : "false", CsvQuote(reasons));
  }
  return csv;
}

Status CheckResultDirectoryWritable(const std::string& directory) {
  // The one refusal with advice of its own; every other reason is the core policy's.
  std::error_code error;
  if (!directory.empty() && std::filesystem::symlink_status(directory, error).type() !=
                                std::filesystem::file_type::not_found) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "result directory " + directory + " already exists; choose another --out");
  }
  return PrepareNewDirectory(directory);
}

Status WriteResultDirectory(const std::string& directory,
                            const std::vector<Measurement>& measurements, const RunInfo& run) {
  namespace fs = std::filesystem;
  const fs::path target(directory);
  std::error_code error;
  XPUPERF_RETURN_IF_ERROR(CheckResultDirectoryWritable(directory));
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(parent, error);
  const fs::path temporary =
      parent / fmt::format(".{}.partial-{}", target.filename().string(), getpid());
  fs::remove_all(temporary, error);
  if (!fs::create_directory(temporary, error)) {
    return MakeError(ErrorCode::kIo,
                     fmt::format("cannot create {}: {}", temporary.string(), error.message()));
  }
  std::string jsonl;
  for (const Measurement& m : measurements) jsonl += MeasurementRecord(m, run).dump() + "\n";
  Status status = WriteFile(temporary / "results.jsonl", jsonl);
  if (status.ok()) status = WriteFile(temporary / "summary.csv", SummaryCsv(measurements));
  if (status.ok()) {
    status = WriteFile(temporary / "environment.json",
                       DescribeEnvironment(run.device, run).dump(2) + "\n");
  }
  if (status.ok()) {
    fs::rename(temporary, target, error);
    if (error) {
      status =
          MakeError(ErrorCode::kIo, fmt::format("cannot rename {} to {}: {}", temporary.string(),
                                                directory, error.message()));
    }
  }
  if (!status.ok()) fs::remove_all(temporary, error);
  return status;
}

Status ReplaceResultDirectory(const std::string& directory,
                              const std::vector<Measurement>& measurements, const RunInfo& run) {
  namespace fs = std::filesystem;
  const fs::path target(directory);
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const fs::path fresh =
      parent / fmt::format(".{}.resumed-{}", target.filename().string(), getpid());
  const fs::path old = parent / fmt::format(".{}.old-{}", target.filename().string(), getpid());
  std::error_code error;
  fs::remove_all(fresh, error);
  XPUPERF_RETURN_IF_ERROR(WriteResultDirectory(fresh.string(), measurements, run));
  fs::rename(target, old, error);
  if (error) {
    fs::remove_all(fresh, error);
    return MakeError(ErrorCode::kIo,
                     fmt::format("cannot move {} aside: {}", directory, error.message()));
  }
  fs::rename(fresh, target, error);
  if (error) {
    std::error_code ignored;
    fs::rename(old, target, ignored);  // put the partial run back
    return MakeError(ErrorCode::kIo, fmt::format("cannot rename {} to {}: {}", fresh.string(),
                                                 directory, error.message()));
  }
  fs::remove_all(old, error);
  return Status::Ok();
}

}  // namespace xpuperf::bench

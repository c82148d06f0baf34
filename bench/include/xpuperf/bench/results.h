// Result files of a run: results.jsonl (one record per measurement), summary.csv and
// environment.json, written into a directory that appears whole or not at all.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/machine_state.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

struct RunInfo {
  std::string run_id;  // "<UTC timestamp>-<host>", also the default directory name
  std::string host;
  std::string suite;
  int64_t timestamp_ns = 0;  // wall clock, ns since the Unix epoch, when the run started
  Device device;
  std::vector<std::string> skipped;  // points that could not run, with the reason
  // The machine's state before and after the run (environment.json "machine_state"), and the
  // physical-consistency checks it broke.
  std::optional<MachineState> machine_window_start;  // kIdleWindowSeconds before machine_before
  std::optional<MachineState> machine_before;
  std::optional<MachineState> machine_after;
  std::vector<std::string> inconsistencies;
  // A run a stop request ended (environment.json "partial": true): the points it measured or
  // skipped ("points_done") and the ones it did not reach ("points_pending"), by their progress
  // labels, and what `bench run --resume` needs to finish it ("resume": the suite and options).
  bool partial = false;
  std::vector<std::string> points_done;
  std::vector<std::string> points_pending;
  nlohmann::json resume = nlohmann::json::object();
};

// "20261130T145200Z-host" from a wall-clock time.
std::string MakeRunId(int64_t wall_ns, const std::string& host);

// One results.jsonl record: the DESIGN.md fields (benchmark, metric, value, unit, parameters,
// statistics, samples, device, host, run_id, timestamp, xpuperf_version, formula,
// json_schema_version) plus PerfKit Benchmarker's metric/value/unit/metadata/timestamp (seconds),
// test and run_uri.
nlohmann::json MeasurementRecord(const Measurement& measurement, const RunInfo& run);

// Header plus one row per measurement: benchmark,metric,value,unit,median_s,cv,nominal_peak,
// percent_of_nominal,parameters (JSON, quoted).
std::string SummaryCsv(const std::vector<Measurement>& measurements);

// The machine the numbers came from: CPU model, cores, caches, compiler, OpenMP and OpenBLAS
// builds, the frequency used for nominal peaks and where it came from.
nlohmann::json DescribeEnvironment(const Device& device, const RunInfo& run);

// Checks, before a run starts, that WriteResultDirectory(directory) can succeed: nothing exists at
// `directory` (not even a dangling link) and the nearest existing ancestor is a directory in which
// this process may create entries. kInvalidArgument naming the path and the reason.
Status CheckResultDirectoryWritable(const std::string& directory);

// Writes the three files into `directory`, which must not exist yet: they are written into a
// sibling temporary directory that is renamed into place, so a failure leaves nothing behind.
// kInvalidArgument when the directory exists, kIo when a write fails.
Status WriteResultDirectory(const std::string& directory,
                            const std::vector<Measurement>& measurements, const RunInfo& run);
// The same over an existing result directory (`bench run --resume`): the new files are written
// beside it and swapped in, so the old one stays whole until the new one is complete.
Status ReplaceResultDirectory(const std::string& directory,
                              const std::vector<Measurement>& measurements, const RunInfo& run);

}  // namespace xpuperf::bench

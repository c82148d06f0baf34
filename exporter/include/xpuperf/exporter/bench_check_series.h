// The last `bench check` of a node as series, so an alert rule fires when a node's measured
// network or compute falls under its share of the spec sheet (benchmarks as SLAs).
//
// `xpuperf bench check RESULTS --export FILE` writes the check as JSON (the `--json` document plus
// `checked_at_unix_seconds`); `xpuperf serve --bench-check FILE` re-reads FILE when it changes and
// exports, per checked row (labels component, metric):
//   xpuperf_bench_check_achieved_ratio   measured / spec (1 = the spec sheet's figure)
//   xpuperf_bench_check_threshold_ratio  the row's pass threshold as a ratio (0.95 for network)
//   xpuperf_bench_check_passed           1 pass, 0 fail (rows without a spec or a measurement:
//   none)
// and once: xpuperf_bench_check_timestamp_seconds (when the check ran), xpuperf_bench_check_info
// {sheet_device, run_device} = 1, and xpuperf_bench_check_up (1 when FILE was read and parsed, 0
// when it is missing or malformed; the families of the last good read are kept meanwhile).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/exporter/metric_family.h"

namespace xpuperf::exporter {

// Parses a check document; `file_mtime_seconds` stands in for a missing checked_at_unix_seconds.
// Every series carries `hostname` when it is not empty (as the device series do). kParse naming
// the field on a malformed document. Pure: safe on any input (fuzzed).
Result<std::vector<MetricFamily>> BenchCheckFamilies(std::string_view json_text,
                                                     double file_mtime_seconds,
                                                     const std::string& hostname);

// A JSON document on disk exported as series by `serve` (the bench check, the last diagnostic).
// Refresh() does the I/O (call it off the scrape path, e.g. from a timer), re-reading the file when
// its modification time or size changed; Families() returns the families of the last good read
// plus `<up_name>{hostname}` (1 read and parsed, 0 missing or malformed) and is cheap.
// Thread-safe.
using SeriesParser = std::function<Result<std::vector<MetricFamily>>(
    std::string_view text, double file_mtime_seconds, const std::string& hostname)>;

class SeriesFile {
 public:
  SeriesFile(std::string path, std::string hostname, std::string up_name, std::string up_help,
             SeriesParser parser)
      : path_(std::move(path)),
        hostname_(std::move(hostname)),
        up_name_(std::move(up_name)),
        up_help_(std::move(up_help)),
        parser_(std::move(parser)) {}

  // Returns the read error, if any (the caller logs it once per change of message).
  Status Refresh();
  std::vector<MetricFamily> Families() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string hostname_;
  std::string up_name_;
  std::string up_help_;
  SeriesParser parser_;
  mutable std::mutex mutex_;
  bool up_ = false;
  int64_t seen_mtime_ns_ = -1;
  int64_t seen_size_ = -1;
  std::vector<MetricFamily> families_;  // of the last good read
};

// The check file `serve --bench-check` watches (xpuperf_bench_check_up).
class BenchCheckFile : public SeriesFile {
 public:
  BenchCheckFile(std::string path, std::string hostname);
};

}  // namespace xpuperf::exporter

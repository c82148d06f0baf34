#include "xpuperf/exporter/bench_check_series.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "xpuperf/core/input_file.h"

namespace xpuperf::exporter {
namespace {

using nlohmann::json;

// A check document is a few kilobytes; anything past this is not one.
constexpr uint64_t kMaxCheckFileBytes = 4ull << 20;

Error FieldError(const std::string& what) {
  return MakeError(ErrorCode::kParse, "bench check file: " + what);
}

std::string StringField(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A finite number, or nothing (absent or null); a value of another type is an error.
Result<std::optional<double>> OptionalNumber(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<double>();
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    return FieldError(fmt::format("'{}' is not a finite number", key));
  }
  return std::optional<double>(it->get<double>());
}

}  // namespace

Result<std::vector<MetricFamily>> BenchCheckFamilies(std::string_view json_text,
                                                     double file_mtime_seconds,
                                                     const std::string& hostname) {
  Labels base;
  if (!hostname.empty()) base.Set("hostname", hostname);
  const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return FieldError("not one JSON object");
  const auto rows = doc.find("rows");
  if (rows == doc.end() || !rows->is_array()) return FieldError("no 'rows' array");
  XPUPERF_ASSIGN_OR_RETURN(const std::optional<double> checked_at,
                           OptionalNumber(doc, "checked_at_unix_seconds"));

  MetricFamily achieved = GaugeFamily("xpuperf_bench_check_achieved_ratio",
                                      "Measured / spec-sheet figure in the last bench check");
  MetricFamily threshold = GaugeFamily("xpuperf_bench_check_threshold_ratio",
                                       "The bench check's pass threshold, as a share of the spec");
  MetricFamily passed =
      GaugeFamily("xpuperf_bench_check_passed", "1 when the row reached its threshold, 0 when not");
  for (const json& row : *rows) {
    if (!row.is_object()) return FieldError("a row is not an object");
    const std::string component = StringField(row, "component");
    const std::string metric = StringField(row, "metric");
    if (component.empty() || metric.empty()) {
      return FieldError("a row needs 'component' and 'metric' strings");
    }
    Labels labels = base;
    labels.Set("component", component);
    labels.Set("metric", metric);
    XPUPERF_ASSIGN_OR_RETURN(const std::optional<double> percent,
                             OptionalNumber(row, "achieved_percent"));
    XPUPERF_ASSIGN_OR_RETURN(const std::optional<double> threshold_percent,
                             OptionalNumber(row, "threshold_percent"));
    if (percent) achieved.points.push_back({labels, *percent / 100});
    if (threshold_percent) threshold.points.push_back({labels, *threshold_percent / 100});
    // `bench check` writes PASS / FAIL; other verdicts ("not measured", "no spec") judge nothing.
    const std::string verdict = StringField(row, "verdict");
    if (verdict == "PASS" || verdict == "FAIL") {
      passed.points.push_back({labels, verdict == "PASS" ? 1.0 : 0.0});
    }
  }
  MetricFamily timestamp =
      GaugeFamily("xpuperf_bench_check_timestamp_seconds",
                  "When the last bench check ran, seconds since the Unix epoch");
  timestamp.points.push_back({base, checked_at.value_or(file_mtime_seconds)});
  MetricFamily info =
      GaugeFamily("xpuperf_bench_check_info",
                  "The devices of the last bench check: its spec sheet and its run");
  Labels info_labels = base;
  for (const char* key : {"sheet_device", "run_device"}) {
    // In Prometheus an empty label value is an absent label: left out.
    if (const std::string value = StringField(doc, key); !value.empty())
      info_labels.Set(key, value);
  }
  info.type = FamilyType::kInfo;
  info.points.push_back({info_labels, 1});

  std::vector<MetricFamily> families;
  for (MetricFamily* family : {&achieved, &threshold, &passed, &timestamp, &info}) {
    if (!family->empty()) families.push_back(std::move(*family));
  }
  return families;
}

Status SeriesFile::Refresh() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    const int error = errno;
    std::lock_guard lock(mutex_);
    up_ = false;
    seen_mtime_ns_ = -1;
    return MakeError(ErrorCode::kNotFound, DescribeFileError(path_, error));
  }
  const int64_t mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  {
    std::lock_guard lock(mutex_);
    if (mtime_ns == seen_mtime_ns_ && st.st_size == seen_size_) return Status::Ok();
  }
  Result<std::string> text = ReadInputFile(path_, kMaxCheckFileBytes);
  Result<std::vector<MetricFamily>> families =
      text.ok() ? parser_(*text, static_cast<double>(st.st_mtim.tv_sec), hostname_)
                : Result<std::vector<MetricFamily>>(text.error());
  std::lock_guard lock(mutex_);
  seen_mtime_ns_ = mtime_ns;
  seen_size_ = st.st_size;
  up_ = families.ok();
  if (!families.ok()) {
    Error error = families.error();
    if (error.message.find(path_) == std::string::npos)
      error.message = path_ + ": " + error.message;
    return error;
  }
  families_ = std::move(*families);
  return Status::Ok();
}

std::vector<MetricFamily> SeriesFile::Families() const {
  std::lock_guard lock(mutex_);
  std::vector<MetricFamily> out = families_;
  MetricFamily up = GaugeFamily(up_name_, up_help_);
  Labels labels;
  if (!hostname_.empty()) labels.Set("hostname", hostname_);
  up.points.push_back({labels, up_ ? 1.0 : 0.0});
  out.push_back(std::move(up));
  return out;
}

BenchCheckFile::BenchCheckFile(std::string path, std::string hostname)
    : SeriesFile(std::move(path), std::move(hostname), "xpuperf_bench_check_up",
                 "1 when the bench check file was read and parsed, 0 when not",
                 BenchCheckFamilies) {}

}  // namespace xpuperf::exporter

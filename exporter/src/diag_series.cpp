#include "xpuperf/exporter/diag_series.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace xpuperf::exporter {
namespace {

using nlohmann::json;

constexpr size_t kMaxTests = 10000;

Error FieldError(const std::string& what) {
  return MakeError(ErrorCode::kParse, "diag results file: " + what);
}

// 0 pass, 1 unknown, 2 warn, 3 fail (health::StatusRank's order); -1 for anything else.
int StatusValue(const std::string& status) {
  if (status == "pass") return 0;
  if (status == "unknown") return 1;
  if (status == "warn") return 2;
  if (status == "fail") return 3;
  return -1;
}

Result<std::string> StringField(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return FieldError(fmt::format("{}: '{}' is not a string", where, key));
  return it->get<std::string>();
}

}  // namespace

Result<std::vector<MetricFamily>> DiagFamilies(std::string_view json_text,
                                               double file_mtime_seconds,
                                               const std::string& hostname) {
  Labels base;
  if (!hostname.empty()) base.Set("hostname", hostname);
  const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return FieldError("not one JSON object");
  const auto tests = doc.find("tests");
  if (tests == doc.end() || !tests->is_array()) return FieldError("no 'tests' array");
  if (tests->size() > kMaxTests) return FieldError(fmt::format("more than {} tests", kMaxTests));
  const auto level = doc.find("level");
  if (level == doc.end() || !level->is_number_integer() || level->get<int64_t>() < 1 ||
      level->get<int64_t>() > 3)
    return FieldError("'level' is not 1, 2 or 3");
  XPUPERF_ASSIGN_OR_RETURN(const std::string result, StringField(doc, "result", "the document"));
  if (result != "pass" && result != "fail") return FieldError("'result' is not pass or fail");
  const auto complete = doc.find("complete");
  if (complete == doc.end() || !complete->is_boolean())
    return FieldError("'complete' is not true or false");
  double timestamp = file_mtime_seconds;
  if (const auto ts = doc.find("timestamp_ns"); ts != doc.end()) {
    if (!ts->is_number() || !std::isfinite(ts->get<double>()))
      return FieldError("'timestamp_ns' is not a finite number");
    timestamp = ts->get<double>() / 1e9;
  }

  MetricFamily test_family =
      GaugeFamily("xpuperf_diag_test",
                  "Each test of the node's last `xpuperf diag`: 0 pass, 1 unknown, 2 warn, 3 fail");
  for (size_t i = 0; i < tests->size(); ++i) {
    const json& t = (*tests)[i];
    const std::string where = fmt::format("tests[{}]", i);
    if (!t.is_object()) return FieldError(where + " is not an object");
    XPUPERF_ASSIGN_OR_RETURN(const std::string name, StringField(t, "test", where));
    XPUPERF_ASSIGN_OR_RETURN(const std::string device, StringField(t, "device", where));
    XPUPERF_ASSIGN_OR_RETURN(const std::string status, StringField(t, "status", where));
    XPUPERF_ASSIGN_OR_RETURN(const std::string code, StringField(t, "code", where));
    const int value = StatusValue(status);
    if (value < 0) return FieldError(where + ": 'status' is not pass, warn, fail or unknown");
    Labels labels = base;
    labels.Set("test", name);
    labels.Set("device", device);
    labels.Set("status", status);
    labels.Set("code", code);
    test_family.points.push_back({labels, static_cast<double>(value)});
  }
  std::vector<MetricFamily> families;
  if (complete->get<bool>()) {
    MetricFamily passed = GaugeFamily("xpuperf_diag_passed",
                                      "1 when every test of the node's last `xpuperf diag` passed");
    Labels labels = base;
    labels.Set("level", std::to_string(level->get<int64_t>()));
    passed.points.push_back({labels, result == "pass" ? 1.0 : 0.0});
    families.push_back(std::move(passed));
  }
  MetricFamily when = GaugeFamily("xpuperf_diag_timestamp_seconds",
                                  "When the node's last `xpuperf diag` ran (Unix seconds)");
  when.points.push_back({base, timestamp});
  families.push_back(std::move(when));
  if (!test_family.points.empty()) families.push_back(std::move(test_family));
  return families;
}

DiagResultsFile::DiagResultsFile(std::string path, std::string hostname)
    : SeriesFile(std::move(path), std::move(hostname), "xpuperf_diag_up",
                 "1 when the diag results file was read and parsed, 0 when not", DiagFamilies) {}

}  // namespace xpuperf::exporter

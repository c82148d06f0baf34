#include "point_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace xpuperf::pjrt_bench {

PointReader::PointReader(const nlohmann::json& point, std::string benchmark,
                         std::initializer_list<const char*> known_keys)
    : point_(point),
      benchmark_(std::move(benchmark)),
      known_(known_keys.begin(), known_keys.end()) {}

Status PointReader::CheckKeys() const {
  if (point_.is_null()) return Status::Ok();
  if (!point_.is_object()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: a sweep point must be a mapping, got {}", benchmark_, point_.dump()));
  }
  for (const auto& [key, value] : point_.items()) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("{}: unknown parameter '{}' (known: {})", benchmark_, key,
                                   fmt::join(known_, ", ")));
    }
  }
  return Status::Ok();
}

Result<int64_t> PointReader::Integer(const char* key, int64_t fallback, int64_t min,
                                     int64_t max) const {
  if (!point_.is_object() || !point_.contains(key)) return fallback;
  const nlohmann::json& v = point_.at(key);
  double number = 0;
  if (v.is_number_integer()) {
    number = static_cast<double>(v.get<int64_t>());
  } else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()) {
    number = v.get<double>();
  } else {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: '{}' must be a whole number, got {}", benchmark_, key, v.dump()));
  }
  if (number < static_cast<double>(min) || number > static_cast<double>(max)) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("{}: '{}' = {} is outside {}..{}",
                                                              benchmark_, key, v.dump(), min, max));
  }
  return static_cast<int64_t>(number);
}

Result<std::string> PointReader::String(const char* key, std::string fallback,
                                        const std::vector<std::string>& allowed) const {
  std::string value = std::move(fallback);
  if (point_.is_object() && point_.contains(key)) {
    const nlohmann::json& v = point_.at(key);
    if (!v.is_string()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("{}: '{}' must be a string, got {}", benchmark_, key, v.dump()));
    }
    value = v.get<std::string>();
  }
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{}: '{}' = '{}' is not one of {}", benchmark_, key, value,
                                 fmt::join(allowed, ", ")));
  }
  return value;
}

Result<bool> PointReader::Boolean(const char* key, bool fallback) const {
  if (!point_.is_object() || !point_.contains(key)) return fallback;
  const nlohmann::json& v = point_.at(key);
  if (!v.is_boolean()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: '{}' must be true or false, got {}", benchmark_, key, v.dump()));
  }
  return v.get<bool>();
}

}  // namespace xpuperf::pjrt_bench

// Typed reads of a sweep point's parameters (user input from a suite file): a wrong JSON type is
// a kInvalidArgument naming the benchmark and key, never an exception from the JSON library.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::bench {

inline Result<std::string> StringParameter(const nlohmann::json& point, const char* benchmark,
                                           const char* key, const char* fallback) {
  if (!point.is_object() || !point.contains(key)) return std::string(fallback);
  if (!point[key].is_string()) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("{}: '{}' must be a string (got {})",
                                                              benchmark, key, point[key].dump()));
  }
  return point[key].get<std::string>();
}

inline Result<int64_t> IntegerParameter(const nlohmann::json& point, const char* benchmark,
                                        const char* key, int64_t fallback) {
  if (!point.is_object() || !point.contains(key)) return fallback;
  if (!point[key].is_number_integer()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: '{}' must be an integer (got {})", benchmark, key, point[key].dump()));
  }
  return point[key].get<int64_t>();
}

}  // namespace xpuperf::bench

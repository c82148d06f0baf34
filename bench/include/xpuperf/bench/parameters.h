// Typed sweep-point parameters: each benchmark describes its parameters once (name, type, range or
// choices, default), and every point of a suite is checked against that description before
// anything runs. Unknown (misspelled) keys, wrong types, fractional integers and out-of-range
// values are errors naming the benchmark and the key; the resolved point (defaults filled in) is
// what the benchmark runs and what its result record states.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::bench {

enum class ParameterType { kInteger, kNumber, kString, kBoolean };

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct ParameterSpec {
  std::string name;
  ParameterType type = ParameterType::kInteger;
  // Used when the point omits the key; null = optional without a default (the benchmark derives
  // the value, e.g. from the cache sizes, and records what it used).
  nlohmann::json default_value;
  // Inclusive range for kInteger and kNumber.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // kString: the accepted values; empty = any text
};

using ParameterSchema = std::vector<ParameterSpec>;

// The kinds of parameter. A null default means "derived by the benchmark" (see above).
ParameterSpec IntegerParameter(std::string name, nlohmann::json default_value, double min,
                               double max);
ParameterSpec NumberParameter(std::string name, nlohmann::json default_value, double min,
                              double max);
// default_value: a string, or null when the benchmark derives the value from the others.
ParameterSpec ChoiceParameter(std::string name, nlohmann::json default_value,
                              std::vector<std::string> choices);
// Any text, checked by the benchmark itself (e.g. an ISA name against its kernel table).
ParameterSpec TextParameter(std::string name, nlohmann::json default_value);
ParameterSpec BooleanParameter(std::string name, bool default_value);

// Checks `point` (a JSON object) against `schema` and returns it with every default filled in.
// kInvalidArgument such as "gemm: unknown parameter 'mm' (known: precision, m, n, k)",
// "gemm: 'm' must be an integer (got 64.5)", "gemm: 'm' must be between 1 and 268435456 (got 0)".
Result<nlohmann::json> ResolvePoint(std::string_view benchmark, const ParameterSchema& schema,
                                    const nlohmann::json& point);

// "precision: fp64|fp32 (fp64); m: integer 1..268435456 (512)": for `bench list`.
std::string DescribeSchema(const ParameterSchema& schema);

}  // namespace xpuperf::bench

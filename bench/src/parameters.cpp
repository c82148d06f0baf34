#include "xpuperf/bench/parameters.h"

#include <fmt/format.h>

#include <cmath>

namespace xpuperf::bench {
namespace {

std::string Number(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == std::floor(value) && std::fabs(value) < 1e18) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{:g}", value);
}

std::string Join(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : std::string(separator)) + name;
  return out;
}

Status CheckValue(std::string_view benchmark, const ParameterSpec& spec,
                  const nlohmann::json& value) {
  auto invalid = [&](const std::string& expected) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: '{}' must be {} (got {})", benchmark, spec.name, expected, value.dump()));
  };
  auto range = [&](double number) -> Status {
    if (number < spec.min || number > spec.max) {
      return invalid(fmt::format("between {} and {}", Number(spec.min), Number(spec.max)));
    }
    return Status::Ok();
  };
  switch (spec.type) {
    case ParameterType::kInteger:
      // 64.0 from a YAML "64.0" is refused too: a size is written as an integer.
      if (!value.is_number_integer()) return invalid("an integer");
      return range(value.is_number_unsigned() ? static_cast<double>(value.get<uint64_t>())
                                              : static_cast<double>(value.get<int64_t>()));
    case ParameterType::kNumber:
      if (!value.is_number() || !std::isfinite(value.get<double>())) return invalid("a number");
      return range(value.get<double>());
    case ParameterType::kString: {
      if (!value.is_string()) {
        return invalid(spec.choices.empty() ? "text" : "one of " + Join(spec.choices, ", "));
      }
      if (spec.choices.empty()) return Status::Ok();
      for (const std::string& choice : spec.choices) {
        if (value.get<std::string>() == choice) return Status::Ok();
      }
      return invalid("one of " + Join(spec.choices, ", "));
    }
    case ParameterType::kBoolean:
      if (!value.is_boolean()) return invalid("true or false");
      return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace

ParameterSpec IntegerParameter(std::string name, nlohmann::json default_value, double min,
                               double max) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kInteger;
  spec.default_value = std::move(default_value);
  spec.min = min;
  spec.max = max;
  return spec;
}

ParameterSpec NumberParameter(std::string name, nlohmann::json default_value, double min,
                              double max) {
  ParameterSpec spec = IntegerParameter(std::move(name), std::move(default_value), min, max);
  spec.type = ParameterType::kNumber;
  return spec;
}

ParameterSpec ChoiceParameter(std::string name, nlohmann::json default_value,
                              std::vector<std::string> choices) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kString;
  spec.default_value = std::move(default_value);
  spec.choices = std::move(choices);
  return spec;
}

ParameterSpec TextParameter(std::string name, nlohmann::json default_value) {
  return ChoiceParameter(std::move(name), std::move(default_value), {});
}

ParameterSpec BooleanParameter(std::string name, bool default_value) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.type = ParameterType::kBoolean;
  spec.default_value = default_value;
  return spec;
}

Result<nlohmann::json> ResolvePoint(std::string_view benchmark, const ParameterSchema& schema,
                                    const nlohmann::json& point) {
  if (!point.is_object()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: a sweep point must be a mapping (got {})", benchmark, point.dump()));
  }
  std::vector<std::string> known;
  for (const ParameterSpec& spec : schema) known.push_back(spec.name);
  for (const auto& [key, value] : point.items()) {
    bool found = false;
    for (const ParameterSpec& spec : schema) found = found || spec.name == key;
    if (!found) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("{}: unknown parameter '{}' (known: {})", benchmark, key,
                                   known.empty() ? std::string("none") : Join(known, ", ")));
    }
  }
  nlohmann::json resolved = nlohmann::json::object();
  for (const ParameterSpec& spec : schema) {
    if (point.contains(spec.name)) {
      XPUPERF_RETURN_IF_ERROR(CheckValue(benchmark, spec, point[spec.name]));
      resolved[spec.name] = point[spec.name];
    } else if (!spec.default_value.is_null()) {
      resolved[spec.name] = spec.default_value;
    }
  }
  return resolved;
}

std::string DescribeSchema(const ParameterSchema& schema) {
  std::string out;
  for (const ParameterSpec& spec : schema) {
    std::string type;
    switch (spec.type) {
      case ParameterType::kInteger:
      case ParameterType::kNumber:
        type = fmt::format("{} {}..{}", spec.type == ParameterType::kInteger ? "integer" : "number",
                           Number(spec.min), Number(spec.max));
        break;
      case ParameterType::kString:
        type = spec.choices.empty() ? "text" : Join(spec.choices, "|");
        break;
      case ParameterType::kBoolean:
        type = "true|false";
        break;
    }
    const std::string fallback =
        spec.default_value.is_null() ? "derived" : spec.default_value.dump();
    out += fmt::format("{}{}: {} ({})", out.empty() ? "" : "; ", spec.name, type, fallback);
  }
  return out;
}

}  // namespace xpuperf::bench

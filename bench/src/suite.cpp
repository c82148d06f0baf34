#include "xpuperf/bench/suite.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "xpuperf/bench/registry.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::bench {
namespace {

// yaml-cpp marks are 0-based; files are read 1-based.
Error ParseErrorAt(std::string_view source, const YAML::Mark& mark, const std::string& what) {
  return MakeError(ErrorCode::kParse, fmt::format("{}:{}: {}", source, mark.line + 1, what));
}

nlohmann::json ScalarToJson(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (text == "true" || text == "false") return text == "true";
  try {
    size_t used = 0;
    const long long integer = std::stoll(text, &used);
    if (used == text.size()) return integer;
    const double real = std::stod(text, &used);
    if (used == text.size()) return real;
  } catch (const std::exception&) {
  }
  return text;
}

Status ReadSampling(const YAML::Node& node, std::string_view source, SamplingOptions& sampling) {
  if (!node) return Status::Ok();
  if (!node.IsMap()) return ParseErrorAt(source, node.Mark(), "'sampling' must be a mapping");
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    try {
      if (key == "warmup_samples") {
        sampling.warmup_samples = item.second.as<int>();
      } else if (key == "samples") {
        sampling.samples = item.second.as<int>();
      } else if (key == "min_sample_seconds") {
        sampling.min_sample_seconds = item.second.as<double>();
      } else if (key == "target_cv") {
        sampling.target_cv = item.second.as<double>();
      } else if (key == "max_point_seconds") {
        sampling.max_point_seconds = item.second.as<double>();
      } else if (key == "max_samples") {
        sampling.max_samples = item.second.as<int>();
      } else if (key == "time_cap_seconds") {
        sampling.time_cap_seconds = item.second.as<double>();
      } else {
        return ParseErrorAt(source, item.first.Mark(),
                            "unknown sampling key '" + key +
                                "' (known: warmup_samples, samples, min_sample_seconds, "
                                "target_cv, max_point_seconds, max_samples, time_cap_seconds)");
      }
    } catch (const YAML::Exception&) {
      return ParseErrorAt(source, item.second.Mark(), "'" + key + "' must be a number");
    }
  }
  // The ranges of the command-line overrides (docs/POLICIES.md): a sample ends within a second,
  // so Ctrl-C is honoured promptly.
  if (sampling.samples < 1 || sampling.samples > 100000 || sampling.warmup_samples < 0 ||
      sampling.warmup_samples > 1000 || !(sampling.min_sample_seconds >= 1e-6) ||
      !(sampling.min_sample_seconds <= 1.0)) {
    return ParseErrorAt(source, node.Mark(),
                        "sampling needs 1 <= samples <= 100000, 0 <= warmup_samples <= 1000 and "
                        "1e-06 <= min_sample_seconds <= 1");
  }
  if (!(sampling.target_cv >= 0.001 && sampling.target_cv <= 10) ||
      !(sampling.max_point_seconds >= 0 && sampling.max_point_seconds <= 600) ||
      sampling.max_samples < 1 || sampling.max_samples > 100000) {
    return ParseErrorAt(source, node.Mark(),
                        "sampling needs 0.001 <= target_cv <= 10, 0 <= max_point_seconds <= 600 "
                        "and 1 <= max_samples <= 100000");
  }
  if (!(sampling.time_cap_seconds >= 0 && sampling.time_cap_seconds <= 86400)) {
    return ParseErrorAt(source, node.Mark(),
                        "sampling needs 0 <= time_cap_seconds <= 86400 (0: no cap)");
  }
  return Status::Ok();
}

// `devices: cpu` or `devices: [tpu, gpu]`: the device classes an entry is for.
Result<std::vector<std::string>> ReadDeviceClasses(const YAML::Node& node,
                                                   std::string_view source) {
  std::vector<YAML::Node> items;
  if (node.IsScalar()) {
    items.push_back(node);
  } else if (node.IsSequence() && node.size() > 0) {
    for (const auto& item : node) items.push_back(item);
  } else {
    return ParseErrorAt(source, node.Mark(),
                        "'devices' must be a device class or a list of them (tpu, gpu, cpu)");
  }
  std::vector<std::string> classes;
  for (const YAML::Node& item : items) {
    const std::string name = item.IsScalar() ? item.Scalar() : std::string();
    if (!IsDeviceClass(name)) {
      return ParseErrorAt(source, item.Mark(),
                          "unknown device class '" + name + "' (known: tpu, gpu, cpu)");
    }
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) classes.push_back(name);
  }
  return classes;
}

Result<SuiteEntry> ReadEntry(const YAML::Node& node, std::string_view source,
                             const SamplingOptions& defaults) {
  if (!node.IsMap())
    return ParseErrorAt(source, node.Mark(), "a benchmark entry must be a mapping");
  SuiteEntry entry;
  entry.line = node.Mark().line + 1;
  entry.sampling = defaults;
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    if (key == "benchmark") {
      if (!item.second.IsScalar()) {
        return ParseErrorAt(source, item.second.Mark(), "'benchmark' must be a name");
      }
      entry.benchmark = item.second.Scalar();
    } else if (key == "sweep") {
      if (!item.second.IsSequence()) {
        return ParseErrorAt(source, item.second.Mark(), "'sweep' must be a list of mappings");
      }
      for (const auto& point : item.second) {
        if (!point.IsMap()) {
          return ParseErrorAt(source, point.Mark(), "a sweep point must be a mapping");
        }
        nlohmann::json json = nlohmann::json::object();
        for (const auto& parameter : point) {
          if (!parameter.second.IsScalar()) {
            return ParseErrorAt(source, parameter.second.Mark(), "a parameter must be a scalar");
          }
          json[parameter.first.as<std::string>()] = ScalarToJson(parameter.second);
        }
        entry.sweep.push_back(std::move(json));
      }
    } else if (key == "sampling") {
      XPUPERF_RETURN_IF_ERROR(ReadSampling(item.second, source, entry.sampling));
    } else if (key == "devices") {
      XPUPERF_ASSIGN_OR_RETURN(entry.device_classes, ReadDeviceClasses(item.second, source));
    } else {
      return ParseErrorAt(source, item.first.Mark(),
                          "unknown key '" + key + "' (known: benchmark, sweep, sampling, devices)");
    }
  }
  if (entry.benchmark.empty())
    return ParseErrorAt(source, node.Mark(), "entry without 'benchmark'");
  return entry;
}

}  // namespace

bool IsDeviceClass(std::string_view name) {
  return name == "tpu" || name == "gpu" || name == "cpu";
}

bool SuiteEntry::IsFor(const std::string& device_class) const {
  return device_classes.empty() || std::find(device_classes.begin(), device_classes.end(),
                                             device_class) != device_classes.end();
}

static Result<Suite> ParseSuiteDocument(const YAML::Node& root, std::string_view source);

// The offset of the first byte that is not part of well-formed UTF-8, or npos. (JSON text of the
// sweep points is written with nlohmann::json, which throws on invalid UTF-8.)
static size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      extra = 1, code = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      extra = 2, code = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3, code = c & 0x07;
    } else {
      return i;
    }
    if (text.size() - i <= extra) return i;
    for (size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0) != 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((extra == 2 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) ||
        (extra == 3 && (code < 0x10000 || code > 0x10ffff))) {
      return i;
    }
    i += extra + 1;
  }
  return std::string_view::npos;
}

Result<Suite> ParseSuite(std::string_view yaml, std::string_view source) {
  if (const size_t bad = FirstInvalidUtf8(yaml); bad != std::string_view::npos) {
    const auto line = 1 + std::count(yaml.begin(), yaml.begin() + static_cast<long>(bad), '\n');
    return MakeError(ErrorCode::kParse,
                     fmt::format("{}:{}: not UTF-8 text (byte {})", source, line, bad));
  }
  // Every yaml-cpp conversion below may throw (a list used as a key...): fenced here, so a hostile
  // file gives a one-line error and never an uncaught exception.
  try {
    return ParseSuiteDocument(YAML::Load(std::string(yaml)), source);
  } catch (const YAML::Exception& e) {
    return ParseErrorAt(source, e.mark, e.msg);
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kParse, fmt::format("{}: {}", source, e.what()));
  }
}

static Result<Suite> ParseSuiteDocument(const YAML::Node& root, std::string_view source) {
  if (!root.IsMap()) return ParseErrorAt(source, root.Mark(), "a suite must be a mapping");
  Suite suite;
  XPUPERF_RETURN_IF_ERROR(ReadSampling(root["sampling"], source, suite.sampling));
  for (const auto& item : root) {
    const std::string key = item.first.as<std::string>();
    if (key == "name" || key == "description") {
      if (!item.second.IsScalar()) {
        return ParseErrorAt(source, item.second.Mark(), "'" + key + "' must be text");
      }
      (key == "name" ? suite.name : suite.description) = item.second.Scalar();
    } else if (key == "benchmarks") {
      if (!item.second.IsSequence()) {
        return ParseErrorAt(source, item.second.Mark(), "'benchmarks' must be a list");
      }
      for (const auto& node : item.second) {
        XPUPERF_ASSIGN_OR_RETURN(SuiteEntry entry, ReadEntry(node, source, suite.sampling));
        suite.entries.push_back(std::move(entry));
      }
    } else if (key != "sampling") {
      return ParseErrorAt(
          source, item.first.Mark(),
          "unknown key '" + key + "' (known: name, description, sampling, benchmarks)");
    }
  }
  if (suite.entries.empty()) {
    return ParseErrorAt(source, root.Mark(), "the suite lists no benchmarks");
  }
  if (suite.name.empty()) suite.name = std::string(source);
  return suite;
}

Status ValidateSuite(const Suite& suite, const BenchmarkRegistry& registry) {
  // benchmark + resolved point -> the line of the entry that measures it first.
  std::map<std::string, int> measured_at;
  for (const SuiteEntry& entry : suite.entries) {
    const Benchmark* benchmark = registry.Find(entry.benchmark);
    if (benchmark == nullptr) {
      return MakeError(ErrorCode::kNotFound,
                       fmt::format("{}:{}: unknown benchmark '{}' (known: {})", suite.name,
                                   entry.line, entry.benchmark, registry.Names()));
    }
    const std::vector<nlohmann::json> sweep =
        entry.sweep.empty() ? benchmark->default_sweep() : entry.sweep;
    const auto schema = benchmark->parameter_schema();
    for (const nlohmann::json& point : sweep) {
      // Every point is checked before the first one runs: a typo fails in a second, not an hour in.
      nlohmann::json resolved = point;
      if (schema) {
        Result<nlohmann::json> checked = ResolvePoint(entry.benchmark, *schema, point);
        if (!checked.ok()) {
          return MakeError(
              ErrorCode::kInvalidArgument,
              fmt::format("{}:{}: {}", suite.name, entry.line, checked.error().message));
        }
        resolved = std::move(*checked);
      }
      // The same point twice on one class of device would write two records that readers
      // refuse as duplicates (and compare would count twice): the suite is refused before
      // anything runs. Variants for different classes may share points.
      for (const std::string device_class : {"tpu", "gpu", "cpu"}) {
        if (!entry.IsFor(device_class)) continue;
        auto [at, inserted] = measured_at.emplace(
            device_class + ' ' + entry.benchmark + ' ' + resolved.dump(), entry.line);
        if (!inserted) {
          return MakeError(
              ErrorCode::kInvalidArgument,
              fmt::format("{}:{}: {} {} is already measured by the entry of line {} (with the "
                          "defaults filled in: {})",
                          suite.name, entry.line, entry.benchmark, point.dump(), at->second,
                          resolved.dump()));
        }
      }
    }
  }
  return Status::Ok();
}

Result<Suite> LoadSuite(const std::string& name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
  if (!is_path) {
    const auto& suites = BuiltinSuites();
    const auto found = suites.find(name_or_path);
    if (found == suites.end()) {
      std::string names;
      for (const auto& [name, text] : suites) names += (names.empty() ? "" : ", ") + name;
      return MakeError(ErrorCode::kNotFound, fmt::format("unknown suite '{}' (built in: {}; or a "
                                                         "path to a .yaml file)",
                                                         name_or_path, names));
    }
    return ParseSuite(found->second, name_or_path + ".yaml");
  }
  XPUPERF_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(name_or_path));
  return ParseSuite(text, name_or_path);
}

}  // namespace xpuperf::bench

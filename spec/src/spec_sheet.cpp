#include "xpuperf/spec/spec_sheet.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::spec {
namespace {

// yaml-cpp reports problems by throwing; every throw stays inside this file and becomes a kParse
// error naming the file and the 1-based line.
Error ParseError(std::string_view file, const YAML::Mark& mark, std::string_view what) {
  std::string where(file);
  if (!mark.is_null()) where += ":" + std::to_string(mark.line + 1);
  return MakeError(ErrorCode::kParse, where + ": " + std::string(what));
}

Result<std::string> RequiredString(const YAML::Node& parent, const char* key,
                                   std::string_view file) {
  const YAML::Node node = parent[key];
  if (!node || !node.IsScalar() || node.Scalar().empty()) {
    return ParseError(file, node ? node.Mark() : parent.Mark(),
                      std::string("missing required text field '") + key + "'");
  }
  return node.Scalar();
}

// A non-negative finite number ("197e12" and "819000000000" both work).
Result<double> NonNegative(const YAML::Node& node, std::string_view name, std::string_view file) {
  double value = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, value) || !std::isfinite(value)) {
    return ParseError(file, node.Mark(), "'" + std::string(name) + "' is not a number");
  }
  if (value < 0) {
    return ParseError(file, node.Mark(), "'" + std::string(name) + "' is negative");
  }
  return value;
}

Result<double> RequiredNumber(const YAML::Node& parent, const char* key, std::string_view path,
                              std::string_view file) {
  const YAML::Node node = parent[key];
  if (!node) {
    return ParseError(file, parent.Mark(),
                      "missing required field '" + std::string(path) + "." + key + "'");
  }
  return NonNegative(node, std::string(path) + "." + key, file);
}

// An optional text field: absent -> `fallback`; present but not text -> error.
Result<std::string> OptionalString(const YAML::Node& parent, const char* key, std::string_view path,
                                   std::string_view file, std::string fallback = {}) {
  const YAML::Node node = parent[key];
  if (!node) return fallback;
  if (!node.IsScalar()) {
    return ParseError(file, node.Mark(), "'" + std::string(path) + "' is not text");
  }
  return node.Scalar();
}

// A misspelled key ("bandwith_bytes_per_second") must not be ignored: names it and its line.
Status KnownKeys(const YAML::Node& map, std::initializer_list<std::string_view> known,
                 std::string_view where, std::string_view file) {
  for (const auto& item : map) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string("?");
    bool found = false;
    for (std::string_view name : known) found = found || name == key;
    if (found) continue;
    std::string list;
    for (std::string_view name : known) list += Concat(list.empty() ? "" : ", ", name);
    return ParseError(file, item.first.Mark(),
                      Concat("unknown key '", key, "' in ", where, " (known: ", list, ")"));
  }
  return Status::Ok();
}

Result<std::optional<LinkBandwidth>> OptionalLink(const YAML::Node& root, const char* key,
                                                  std::string_view file,
                                                  const std::string& sheet_source) {
  const YAML::Node node = root[key];
  if (!node) return std::optional<LinkBandwidth>();
  if (!node.IsMap())
    return ParseError(file, node.Mark(), std::string("'") + key + "' is not a map");
  XPUPERF_RETURN_IF_ERROR(
      KnownKeys(node, {"tx_bytes_per_second", "rx_bytes_per_second", "name", "source"}, key, file));
  LinkBandwidth link;
  XPUPERF_ASSIGN_OR_RETURN(link.tx_bytes_per_second,
                           RequiredNumber(node, "tx_bytes_per_second", key, file));
  XPUPERF_ASSIGN_OR_RETURN(link.rx_bytes_per_second,
                           RequiredNumber(node, "rx_bytes_per_second", key, file));
  XPUPERF_ASSIGN_OR_RETURN(link.name,
                           OptionalString(node, "name", std::string(key) + ".name", file));
  XPUPERF_ASSIGN_OR_RETURN(link.source, OptionalString(node, "source", std::string(key) + ".source",
                                                       file, sheet_source));
  return std::optional<LinkBandwidth>(link);
}

Result<SpecSheet> FromYaml(const YAML::Node& root, std::string_view file) {
  if (!root.IsMap()) return ParseError(file, root.Mark(), "a spec sheet is a YAML mapping");
  XPUPERF_RETURN_IF_ERROR(
      KnownKeys(root,
                {"device", "vendor", "source", "aliases", "peak_flops_source",
                 "peak_flops_per_second", "memory", "host_link", "network_link", "notes"},
                "the spec sheet", file));
  SpecSheet sheet;
  sheet.file = std::string(file);
  XPUPERF_ASSIGN_OR_RETURN(sheet.device, RequiredString(root, "device", file));
  XPUPERF_ASSIGN_OR_RETURN(sheet.vendor, RequiredString(root, "vendor", file));
  XPUPERF_ASSIGN_OR_RETURN(sheet.source, RequiredString(root, "source", file));
  if (const YAML::Node aliases = root["aliases"]; aliases) {
    if (!aliases.IsSequence()) {
      return ParseError(file, aliases.Mark(), "'aliases' is not a list of model names");
    }
    for (const YAML::Node& alias : aliases) {
      if (!alias.IsScalar() || alias.Scalar().empty()) {
        return ParseError(file, alias.Mark(), "an entry of 'aliases' is not a model name");
      }
      sheet.aliases.push_back(alias.Scalar());
    }
  }
  XPUPERF_ASSIGN_OR_RETURN(
      const std::string peak_source,
      OptionalString(root, "peak_flops_source", "peak_flops_source", file, sheet.source));
  const YAML::Node peaks = root["peak_flops_per_second"];
  if (!peaks || !peaks.IsMap() || peaks.size() == 0) {
    return ParseError(file, peaks ? peaks.Mark() : root.Mark(),
                      "missing required map 'peak_flops_per_second' (precision: FLOP/s)");
  }
  for (const auto& entry : peaks) {
    if (!entry.first.IsScalar()) {
      return ParseError(file, entry.first.Mark(), "a precision name is not text");
    }
    const std::string precision = entry.first.Scalar();
    XPUPERF_ASSIGN_OR_RETURN(double peak,
                             NonNegative(entry.second, "peak_flops_per_second." + precision, file));
    sheet.peak_flops_per_second[precision] = peak;
    sheet.peak_sources[precision] = peak_source;
  }
  const YAML::Node memory = root["memory"];
  if (!memory || !memory.IsMap()) {
    return ParseError(file, memory ? memory.Mark() : root.Mark(), "missing required map 'memory'");
  }
  XPUPERF_RETURN_IF_ERROR(
      KnownKeys(memory, {"bytes", "bandwidth_bytes_per_second", "type", "source"}, "memory", file));
  XPUPERF_ASSIGN_OR_RETURN(sheet.memory_bytes, RequiredNumber(memory, "bytes", "memory", file));
  XPUPERF_ASSIGN_OR_RETURN(sheet.memory_bandwidth_bytes_per_second,
                           RequiredNumber(memory, "bandwidth_bytes_per_second", "memory", file));
  XPUPERF_ASSIGN_OR_RETURN(sheet.memory_type, OptionalString(memory, "type", "memory.type", file));
  XPUPERF_ASSIGN_OR_RETURN(sheet.memory_source,
                           OptionalString(memory, "source", "memory.source", file, sheet.source));
  XPUPERF_ASSIGN_OR_RETURN(sheet.host_link, OptionalLink(root, "host_link", file, sheet.source));
  XPUPERF_ASSIGN_OR_RETURN(sheet.network_link,
                           OptionalLink(root, "network_link", file, sheet.source));
  if (const YAML::Node notes = root["notes"]; notes && notes.IsScalar())
    sheet.notes = notes.Scalar();
  return sheet;
}

}  // namespace

std::optional<double> SpecSheet::RidgePoint(std::string_view precision) const {
  auto it = peak_flops_per_second.find(std::string(precision));
  if (it == peak_flops_per_second.end() || memory_bandwidth_bytes_per_second <= 0) {
    return std::nullopt;
  }
  return it->second / memory_bandwidth_bytes_per_second;
}

Result<SpecSheet> ParseSpecSheet(std::string_view yaml_text, std::string_view file_name) {
  try {
    return FromYaml(YAML::Load(std::string(yaml_text)), file_name);
  } catch (const YAML::Exception& e) {
    return ParseError(file_name, e.mark, e.msg);
  }
}

Result<SpecSheet> LoadSpecSheet(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path));
  return ParseSpecSheet(text, path);
}

Result<std::vector<SpecSheet>> LoadSpecSheets(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path().string());
  }
  if (ec)
    return MakeError(ErrorCode::kNotFound,
                     "cannot list spec sheets in " + dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  std::vector<SpecSheet> sheets;
  for (const std::string& path : paths) {
    XPUPERF_ASSIGN_OR_RETURN(SpecSheet sheet, LoadSpecSheet(path));
    sheets.push_back(std::move(sheet));
  }
  return sheets;
}

std::string ShippedSpecSheetDir() {
  if (const char* dir = std::getenv("XPUPERF_SPEC_DIR"); dir != nullptr && *dir != '\0') return dir;
  // An installed xpuperf (cmake --install, the Debian package) finds the sheets beside its binary,
  // PREFIX/bin/xpuperf -> PREFIX/share/xpuperf/spec, wherever the prefix is; a build tree's binary
  // reads the source tree's sheets.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed =
        self.parent_path().parent_path() / "share" / "xpuperf" / "spec";
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return XPUPERF_SPEC_SHEET_DIR;
}

const SpecSheet* FindSpecSheet(const std::vector<SpecSheet>& sheets, std::string_view model) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
  };
  const std::string wanted = lower(model);
  for (const SpecSheet& sheet : sheets) {
    if (lower(sheet.device) == wanted) return &sheet;
    for (const std::string& alias : sheet.aliases) {
      if (lower(alias) == wanted) return &sheet;
    }
  }
  return nullptr;
}

}  // namespace xpuperf::spec

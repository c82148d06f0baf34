#include "xpuperf/core/cpuinfo.h"

#include <set>
#include <utility>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf {
namespace {

// Arm "CPU implementer" codes (from the Arm ARM MIDR_EL1 register description) to vendor names.
std::string ArmImplementerName(std::string_view code) {
  static constexpr std::pair<std::string_view, std::string_view> kImplementers[] = {
      {"0x41", "ARM"},       {"0x42", "Broadcom"},  {"0x43", "Cavium"}, {"0x46", "Fujitsu"},
      {"0x48", "HiSilicon"}, {"0x4e", "NVIDIA"},    {"0x50", "APM"},    {"0x51", "Qualcomm"},
      {"0x61", "Apple"},     {"0x6d", "Microsoft"}, {"0xc0", "Ampere"}};
  for (const auto& [implementer, name] : kImplementers) {
    if (implementer == code) return std::string(name);
  }
  return "Arm implementer " + std::string(code);
}

Result<int> ParseIntField(std::string_view key, std::string_view value, size_t line_number) {
  std::optional<int64_t> number = ParseSigned(value);
  if (!number || *number < 0 || *number > (int64_t{1} << 30)) {
    return MakeError(ErrorCode::kParse, "line " + std::to_string(line_number) + ": '" +
                                            std::string(key) + "' is not a number: '" +
                                            std::string(value) + "'");
  }
  return static_cast<int>(*number);
}

Status ApplyField(std::string_view key, std::string_view value, size_t line_number,
                  LogicalCpuInfo& cpu) {
  if (key == "vendor_id") {
    cpu.vendor = std::string(value);
  } else if (key == "CPU implementer") {
    cpu.vendor = ArmImplementerName(value);
  } else if (key == "model name") {
    cpu.model_name = std::string(value);
  } else if (key == "CPU part") {
    cpu.cpu_part = std::string(value);
  } else if (key == "cpu family") {
    XPUPERF_ASSIGN_OR_RETURN(cpu.family, ParseIntField(key, value, line_number));
  } else if (key == "model") {
    XPUPERF_ASSIGN_OR_RETURN(cpu.model, ParseIntField(key, value, line_number));
  } else if (key == "physical id") {
    XPUPERF_ASSIGN_OR_RETURN(cpu.physical_id, ParseIntField(key, value, line_number));
  } else if (key == "core id") {
    XPUPERF_ASSIGN_OR_RETURN(cpu.core_id, ParseIntField(key, value, line_number));
  } else if (key == "cpu MHz") {
    cpu.mhz = ParseDouble(value);
    if (!cpu.mhz || *cpu.mhz < 0) {
      return MakeError(ErrorCode::kParse, "line " + std::to_string(line_number) +
                                              ": 'cpu MHz' is not a number: '" +
                                              std::string(value) + "'");
    }
  } else if (key == "flags" || key == "Features") {
    cpu.flags.clear();
    for (std::string_view flag : SplitFields(value)) cpu.flags.emplace_back(flag);
  }
  return Status::Ok();
}

}  // namespace

Result<CpuInfo> ParseCpuInfo(std::string_view text) {
  CpuInfo info;
  LogicalCpuInfo* current = nullptr;  // fields before the first "processor" line are global
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (TrimWhitespace(lines[i]).empty()) continue;
    size_t colon = lines[i].find(':');
    if (colon == std::string_view::npos) {
      return MakeError(ErrorCode::kParse, "line " + std::to_string(i + 1) +
                                              ": expected 'key : value', got '" +
                                              std::string(lines[i]) + "'");
    }
    std::string_view key = TrimWhitespace(lines[i].substr(0, colon));
    std::string_view value = TrimWhitespace(lines[i].substr(colon + 1));
    if (key == "processor") {
      XPUPERF_ASSIGN_OR_RETURN(int processor, ParseIntField(key, value, i + 1));
      current = &info.cpus.emplace_back();
      current->processor = processor;
      continue;
    }
    if (current != nullptr) XPUPERF_RETURN_IF_ERROR(ApplyField(key, value, i + 1, *current));
  }
  if (info.cpus.empty()) return MakeError(ErrorCode::kParse, "no 'processor' entries");
  return info;
}

Result<CpuInfo> ReadCpuInfo(const std::string& root) {
  const std::string path = JoinRoot(root, "/proc/cpuinfo");
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  Result<CpuInfo> info = ParseCpuInfo(text);
  if (!info.ok()) return MakeError(ErrorCode::kParse, path + ": " + info.error().message);
  return info;
}

Topology TopologyFromCpuInfo(const CpuInfo& info) {
  std::set<int> packages;
  std::set<std::pair<int, int>> cores;
  for (const LogicalCpuInfo& cpu : info.cpus) {
    const int package = cpu.physical_id.value_or(0);
    packages.insert(package);
    // Without a core id every logical CPU is its own core; processor numbers are unique.
    cores.insert({package, cpu.core_id.value_or(-1 - cpu.processor)});
  }
  Topology topology;
  topology.packages = static_cast<int>(packages.size());
  topology.cores = static_cast<int>(cores.size());
  topology.threads = static_cast<int>(info.cpus.size());
  topology.source = "cpuinfo";
  return topology;
}

}  // namespace xpuperf

#include "xpuperf/cpu/powercap.h"

#include <map>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

constexpr std::string_view kRaplPrefix = "intel-rapl:";

std::optional<int> ParseZoneNumber(std::string_view digits) { return ParseIndexedName(digits, ""); }

// "package-1" -> "1", "package-0-die-1" -> "0-die-1"; otherwise the zone number.
std::string PackageSuffix(const RaplZone& package) {
  constexpr std::string_view kPackagePrefix = "package-";
  if (package.name.starts_with(kPackagePrefix) && package.name.size() > kPackagePrefix.size()) {
    return package.name.substr(kPackagePrefix.size());
  }
  return std::to_string(package.zone);
}

}  // namespace

std::optional<std::pair<int, std::optional<int>>> ParseRaplZoneId(std::string_view id) {
  if (!id.starts_with(kRaplPrefix)) return std::nullopt;
  std::string_view rest = id.substr(kRaplPrefix.size());
  size_t colon = rest.find(':');
  std::optional<int> zone = ParseZoneNumber(rest.substr(0, colon));
  if (!zone) return std::nullopt;
  if (colon == std::string_view::npos) return std::pair{*zone, std::optional<int>()};
  std::optional<int> subzone = ParseZoneNumber(rest.substr(colon + 1));
  if (!subzone) return std::nullopt;
  return std::pair{*zone, subzone};
}

std::vector<RaplZone> ListRaplZones(const std::string& root) {
  std::vector<RaplZone> zones;
  Result<std::vector<std::string>> entries = ListDirectory(JoinRoot(root, "/sys/class/powercap"));
  if (!entries.ok()) return zones;
  for (const std::string& id : *entries) {
    auto numbers = ParseRaplZoneId(id);
    if (!numbers) continue;
    RaplZone zone;
    zone.id = id;
    zone.path = JoinRoot(root, "/sys/class/powercap/" + id);
    zone.zone = numbers->first;
    zone.subzone = numbers->second;
    Result<std::string> name = ReadTrimmedFile(zone.path + "/name");
    Result<uint64_t> range = ReadUnsignedFile(zone.path + "/max_energy_range_uj");
    if (!name.ok() || name->empty() || !range.ok()) continue;
    zone.name = *name;
    zone.max_energy_range_uj = *range;
    zones.push_back(std::move(zone));
  }
  AssignRaplDomainLabels(zones);
  return zones;
}

void AssignRaplDomainLabels(std::vector<RaplZone>& zones) {
  std::map<int, const RaplZone*> packages;                          // zone number -> top-level zone
  std::map<std::string, std::map<int, int>> subzone_name_packages;  // name -> zone -> count
  for (const RaplZone& zone : zones) {
    if (!zone.subzone) packages[zone.zone] = &zone;
  }
  for (const RaplZone& zone : zones) {
    if (zone.subzone) subzone_name_packages[zone.name][zone.zone]++;
  }
  std::vector<std::string> labels;
  for (const RaplZone& zone : zones) {
    std::string label = zone.name;
    if (zone.subzone && subzone_name_packages[zone.name].size() > 1) {
      auto package = packages.find(zone.zone);
      label += "-" + (package != packages.end() ? PackageSuffix(*package->second)
                                                : std::to_string(zone.zone));
    }
    labels.push_back(std::move(label));
  }
  std::map<std::string, int> uses;
  for (const std::string& label : labels) uses[label]++;
  for (size_t i = 0; i < zones.size(); ++i) {
    zones[i].domain = uses[labels[i]] > 1 ? zones[i].id : labels[i];
  }
}

Result<uint64_t> ReadRaplEnergyMicrojoules(const RaplZone& zone) {
  return ReadUnsignedFile(zone.path + "/energy_uj");
}

std::string DescribeRaplReadFailure(const std::string& energy_path, const Error& error) {
  if (error.code == ErrorCode::kUnavailable) {
    return "unsupported: " + energy_path + " not readable (root only since CVE-2020-8694)";
  }
  return "unsupported: " + error.message;
}

uint64_t RaplEnergyDeltaMicrojoules(uint64_t before, uint64_t after, uint64_t max_range_uj) {
  if (after >= before) return after - before;
  // Wrapped: the rest of the range up to max_range_uj, the step back to 0, then `after`.
  if (before > max_range_uj) return after;  // inconsistent range: count from the reset only
  return (max_range_uj - before) + 1 + after;
}

}  // namespace xpuperf::cpu

// RAPL energy counters through powercap: /sys/class/powercap/intel-rapl:N (a package or psys) and
// intel-rapl:N:M (its core, uncore or dram sub-zone). AMD Zen uses the same driver and names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

struct RaplZone {
  std::string id;              // directory name: "intel-rapl:0", "intel-rapl:0:1"
  std::string path;            // the directory, root included
  std::string name;            // contents of "name": "package-0", "dram", "core", "uncore", "psys"
  int zone = 0;                // N
  std::optional<int> subzone;  // M, for intel-rapl:N:M
  // The counter wraps to 0 after this value (µJ).
  uint64_t max_energy_range_uj = 0;
  // Unique label for metrics (see AssignRaplDomainLabels).
  std::string domain;
};

// "intel-rapl:3" -> {3, nullopt}, "intel-rapl:3:1" -> {3, 1}; nullopt for any other name
// (including "intel-rapl" itself and "intel-rapl-mmio:0", which repeats the package counter).
std::optional<std::pair<int, std::optional<int>>> ParseRaplZoneId(std::string_view id);

// Lists the RAPL zones under root/sys/class/powercap with their name and max_energy_range_uj (both
// world-readable). Empty when the directory is absent; zones whose attributes cannot be read are
// skipped. Domain labels are assigned.
std::vector<RaplZone> ListRaplZones(const std::string& root);

// Sets RaplZone::domain: the zone name, except that a sub-zone name that occurs under more than one
// package gets the package's suffix ("dram" under "package-1" becomes "dram-1"). Any label still
// repeated falls back to the zone id, so labels are unique.
void AssignRaplDomainLabels(std::vector<RaplZone>& zones);

// energy_uj of a zone (µJ). energy_uj is readable by root only since the 2020 PLATYPUS fix
// (CVE-2020-8694): other users get kUnavailable.
Result<uint64_t> ReadRaplEnergyMicrojoules(const RaplZone& zone);

// The reason reported when a zone's energy_uj cannot be read: the permission case names the 2020
// change that made the counters root-only; other failures carry the error text.
std::string DescribeRaplReadFailure(const std::string& energy_path, const Error& error);

// Energy used between two readings of a counter that wraps after max_range_uj, in µJ:
// (after - before) mod (max_range_uj + 1). Correct across at most one wrap.
uint64_t RaplEnergyDeltaMicrojoules(uint64_t before, uint64_t after, uint64_t max_range_uj);

}  // namespace xpuperf::cpu

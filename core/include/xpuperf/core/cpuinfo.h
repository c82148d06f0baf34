// /proc/cpuinfo: vendor, model, ISA flags, current MHz and package/core ids per logical CPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf {

struct LogicalCpuInfo {
  int processor = 0;       // logical CPU number
  std::string vendor;      // x86 "vendor_id" (GenuineIntel, AuthenticAMD); on Arm the implementer
  std::string model_name;  // x86 "model name"; empty on Arm, which has none
  std::string cpu_part;    // Arm "CPU part" (0xd0c = Neoverse N1), empty on x86
  std::optional<int> family;  // x86 "cpu family"
  std::optional<int> model;   // x86 "model"
  std::optional<double> mhz;  // "cpu MHz": the current clock in MHz where the kernel reports it
  std::vector<std::string> flags;  // x86 "flags" or Arm "Features"
  std::optional<int> physical_id;  // package (socket)
  std::optional<int> core_id;      // core within the package
};

struct CpuInfo {
  std::vector<LogicalCpuInfo> cpus;  // in file order
};

// One block per "processor" entry. kParse when there is none, on a non-empty line without ':', or a
// malformed number in a numeric field.
Result<CpuInfo> ParseCpuInfo(std::string_view text);
// Reads root/proc/cpuinfo.
Result<CpuInfo> ReadCpuInfo(const std::string& root);

// Packages = distinct physical ids, cores = distinct (physical id, core id), threads = processors;
// numa_nodes stays 0 (cpuinfo does not say). A missing physical id counts as package 0 and a
// missing core id makes each logical CPU its own core (as on VMs that hide topology). source =
// "cpuinfo".
Topology TopologyFromCpuInfo(const CpuInfo& info);

}  // namespace xpuperf

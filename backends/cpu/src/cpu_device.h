// Internal to the CPU backend: the description of the host as the device "cpu0".
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"
#include "xpuperf/cpu/meminfo.h"

namespace xpuperf::cpu {

// The flags of `flags` that matter for compute kernels (vector and matrix ISA extensions, plus
// "hypervisor", which says the host is a VM), in a fixed order.
std::vector<std::string> IsaFeaturesOfInterest(const std::vector<std::string>& flags);

// vendor and model from cpuinfo ("unknown" when it is unreadable), memory_bytes = MemTotal,
// features, topology from ReadTopology(root) or, when that fails, from cpuinfo's physical/core ids
// (source "cpuinfo", NUMA nodes counted from root/sys/devices/system/node/nodeN). logical_cpus is
// the thread count of last resort when cpuinfo is unreadable too.
Device DescribeCpuDevice(const std::string& root, const Result<CpuInfo>& cpuinfo,
                         const Result<MemInfo>& meminfo, int logical_cpus);

}  // namespace xpuperf::cpu

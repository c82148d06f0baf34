// Host topology and caches (packages, NUMA nodes, cores, threads, cache levels).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

// Reads the topology through hwloc. With root != "/" hwloc reads the recorded sysfs tree under root
// (hwloc's fsroot); when hwloc cannot load, or the tree lacks the cpumask files hwloc's Linux
// backend needs, falls back to reading sysfs directly. Topology::source says which ("hwloc" or
// "sysfs"). Caches: one CacheLevel per (level, type, size, line size), so hybrid CPUs whose cores
// have different L2 sizes get one entry per size; sorted by level, then data/instruction/unified.
// Thread-safety: calls are serialised internally. hwloc 2.x takes the fsroot only from the
// HWLOC_FSROOT environment variable, which is set for the duration of the load and then restored,
// so no other thread may call setenv/unsetenv/putenv concurrently.
Result<Topology> ReadTopology(const std::string& root);

// The sysfs reader behind the fallback: root/sys/devices/system/cpu/cpuN/topology/
// {physical_package_id,core_id}, cpuN/cache/indexK/{level,type,size,coherency_line_size,
// shared_cpu_list} and root/sys/devices/system/node/nodeN. CPUs are those listed in
// root/sys/devices/system/cpu/online, or every cpuN directory when that file is absent.
// Cores are distinct (package, core_id) pairs; cache instances are distinct shared_cpu_list sets.
Result<Topology> ReadTopologyFromSysfs(const std::string& root);

// Parses a sysfs cache size such as "48K", "1M", "36608K" or "512" into bytes (K = 1024,
// M = 2^20, G = 2^30; surrounding whitespace allowed). kParse on anything else.
Result<uint64_t> ParseSysfsSize(std::string_view text);

// Parses a kernel cpu list such as "0-3,8-11" or "5" into sorted, distinct CPU numbers.
// An empty (or all-whitespace) list is valid and yields no CPUs. kParse on malformed input.
Result<std::vector<int>> ParseSysfsCpuList(std::string_view text);

}  // namespace xpuperf::cpu

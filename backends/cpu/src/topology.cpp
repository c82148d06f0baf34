// Topology through hwloc, live or from a recorded tree (hwloc's fsroot), with the sysfs reader as
// the fallback.
#include "xpuperf/cpu/topology.h"

#include <hwloc.h>
#include <stdlib.h>  // setenv, unsetenv (POSIX)

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>

namespace xpuperf::cpu {
namespace {

namespace fs = std::filesystem;

constexpr char kFsrootVariable[] = "HWLOC_FSROOT";

// hwloc 2.x dropped hwloc_topology_set_fsroot(); its Linux backend reads the root only from
// HWLOC_FSROOT while hwloc_topology_load() runs. Set it for exactly that span and restore whatever
// the user had, under a lock so concurrent ReadTopology calls cannot see each other's root.
class ScopedFsroot {
 public:
  explicit ScopedFsroot(const std::string& root) {
    if (const char* previous = getenv(kFsrootVariable)) saved_ = previous;
    setenv(kFsrootVariable, root.c_str(), /*overwrite=*/1);
  }
  ~ScopedFsroot() {
    if (saved_) {
      setenv(kFsrootVariable, saved_->c_str(), 1);
    } else {
      unsetenv(kFsrootVariable);
    }
  }
  ScopedFsroot(const ScopedFsroot&) = delete;
  ScopedFsroot& operator=(const ScopedFsroot&) = delete;

 private:
  std::optional<std::string> saved_;
};

std::mutex& HwlocLoadMutex() {
  static std::mutex mutex;
  return mutex;
}

using HwlocTopology = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

bool IsLiveRoot(const std::string& root) { return fs::path(root).lexically_normal() == "/"; }

// hwloc 2.9's Linux backend needs one of these cpumask files for cpu0; without them it prints
// "failed to find sysfs cpu topology directory" on stderr and discovers nothing from the tree. Our
// own reader does not need them, so go straight to it rather than let hwloc print noise.
bool HasHwlocCpumasks(const fs::path& root) {
  const fs::path dir = root / "sys/devices/system/cpu/cpu0/topology";
  std::error_code ec;
  for (const char* name : {"package_cpus", "core_cpus", "core_siblings", "thread_siblings"}) {
    if (fs::exists(dir / name, ec)) return true;
  }
  return false;
}

// True when hwloc's Linux backend contributed: with a recorded root, anything else (the no-OS
// fallback) would describe this machine's processor count, not the tree's.
bool UsedLinuxBackend(hwloc_obj_t machine) {
  for (unsigned i = 0; i < machine->infos_count; ++i) {
    if (std::strcmp(machine->infos[i].name, "Backend") == 0 &&
        std::strcmp(machine->infos[i].value, "Linux") == 0) {
      return true;
    }
  }
  return false;
}

const char* CacheTypeName(hwloc_obj_cache_type_t type) {
  switch (type) {
    case HWLOC_OBJ_CACHE_DATA:
      return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION:
      return "instruction";
    case HWLOC_OBJ_CACHE_UNIFIED:
      return "unified";
  }
  return "unified";
}

int CountObjects(hwloc_topology_t topology, hwloc_obj_type_t type) {
  // -1 means the type sits at several depths, which hwloc never does for these types.
  return std::max(0, hwloc_get_nbobjs_by_type(topology, type));
}

Topology Summarize(hwloc_topology_t topology) {
  Topology result;
  result.source = "hwloc";
  result.packages = CountObjects(topology, HWLOC_OBJ_PACKAGE);
  result.numa_nodes = std::max(1, CountObjects(topology, HWLOC_OBJ_NUMANODE));
  result.cores = CountObjects(topology, HWLOC_OBJ_CORE);
  result.threads = CountObjects(topology, HWLOC_OBJ_PU);
  // (level, type, size bytes, line bytes) -> instances; "data" < "instruction" < "unified".
  std::map<std::tuple<int, std::string, uint64_t, int>, int> caches;
  for (hwloc_obj_type_t type :
       {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
        HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE}) {
    const int count = CountObjects(topology, type);
    for (int i = 0; i < count; ++i) {
      const auto& cache = hwloc_get_obj_by_type(topology, type, i)->attr->cache;
      ++caches[{static_cast<int>(cache.depth), CacheTypeName(cache.type), cache.size,
                static_cast<int>(cache.linesize)}];
    }
  }
  for (const auto& [key, instances] : caches) {
    const auto& [level, type, size, line] = key;
    result.caches.push_back(CacheLevel{level, type, size, instances, line});
  }
  return result;
}

Result<Topology> ReadWithHwloc(const std::string& root, bool live) {
  std::lock_guard lock(HwlocLoadMutex());
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    return MakeError(ErrorCode::kInternal,
                     "hwloc_topology_init: " + std::generic_category().message(errno));
  }
  HwlocTopology topology(raw, &hwloc_topology_destroy);
  // Describe the machine, not this process's cgroup, so hwloc and sysfs agree.
  hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  // hwloc drops instruction caches by default; we report every level and type.
  hwloc_topology_set_cache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  // The x86 backend reads CPUID of the machine we run on, which would mix this host into a recorded
  // tree (with an empty tree hwloc silently returns this host's topology through it).
  if (!live) hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
  {
    const ScopedFsroot fsroot(live ? std::string("/") : fs::absolute(root).string());
    if (hwloc_topology_load(raw) != 0) {
      return MakeError(ErrorCode::kUnavailable,
                       "hwloc_topology_load: " + std::generic_category().message(errno));
    }
  }
  if (!live && !UsedLinuxBackend(hwloc_get_root_obj(raw))) {
    return MakeError(ErrorCode::kUnsupported,
                     "hwloc's Linux backend found no topology under " + root);
  }
  Topology result = Summarize(raw);
  if (result.threads <= 0)
    return MakeError(ErrorCode::kInternal, "hwloc reported no processing units");
  return result;
}

}  // namespace

Result<Topology> ReadTopology(const std::string& root) {
  const bool live = IsLiveRoot(root);
  if (!live && !HasHwlocCpumasks(root)) return ReadTopologyFromSysfs(root);
  auto from_hwloc = ReadWithHwloc(root, live);
  if (from_hwloc.ok()) return from_hwloc;
  auto from_sysfs = ReadTopologyFromSysfs(root);
  if (from_sysfs.ok()) return from_sysfs;
  return MakeError(from_sysfs.error().code,
                   "topology unavailable: hwloc: " + from_hwloc.error().message +
                       "; sysfs: " + from_sysfs.error().message);
}

}  // namespace xpuperf::cpu

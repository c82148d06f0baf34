// Topology straight from sysfs: the fallback when hwloc cannot load (or the recorded tree lacks the
// cpumask files hwloc needs), and the parsers for the kernel's size and cpu-list notations.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "xpuperf/core/error_context.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/cpu/topology.h"

namespace xpuperf::cpu {
namespace {

// Kernel NR_CPUS tops out at 8192; anything far beyond is a corrupt file, and refusing it keeps a
// range like "0-4000000000" from allocating gigabytes.
constexpr uint64_t kMaxCpuNumber = 1 << 20;

// Numbers N of the entries named <prefix>N directly under dir (cpu0, node1, index3...), ascending;
// none when dir does not exist.
std::vector<int> NumberedEntries(const std::string& dir, std::string_view prefix) {
  std::vector<int> numbers;
  auto names = ListDirectory(dir);
  if (!names.ok()) return numbers;
  for (const std::string& name : *names) {
    if (auto number = ParseIndexedName(name, prefix)) numbers.push_back(*number);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

Result<int> ReadIntFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(const int64_t value, ReadSignedFile(path));
  if (value < INT32_MIN || value > INT32_MAX) {
    return MakeError(ErrorCode::kParse, path + ": out of range: " + std::to_string(value));
  }
  return static_cast<int>(value);
}

// Prefixes a parser's error with the file it came from.
template <typename T>
Result<T> InFile(const std::string& path, Result<T> parsed) {
  if (parsed.ok()) return parsed;
  return WithContext(parsed.error(), path);
}

std::string CacheTypeName(std::string_view sysfs_type) {
  if (sysfs_type == "Data") return "data";
  if (sysfs_type == "Instruction") return "instruction";
  if (sysfs_type == "Unified") return "unified";
  std::string lower(sysfs_type);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// (level, type, size bytes, line bytes); "data" < "instruction" < "unified" sorts as wanted.
using CacheKey = std::tuple<int, std::string, uint64_t, int>;

// Adds the caches of one CPU: each distinct shared_cpu_list set is one cache instance.
Status AddCpuCaches(const std::string& cpu_dir,
                    std::map<CacheKey, std::set<std::vector<int>>>* caches) {
  const std::string cache_dir = cpu_dir + "/cache";
  for (int index : NumberedEntries(cache_dir, "index")) {
    const std::string dir = cache_dir + "/index" + std::to_string(index);
    XPUPERF_ASSIGN_OR_RETURN(const int level, ReadIntFile(dir + "/level"));
    XPUPERF_ASSIGN_OR_RETURN(const std::string type, ReadTrimmedFile(dir + "/type"));
    XPUPERF_ASSIGN_OR_RETURN(const std::string size_text, ReadTrimmedFile(dir + "/size"));
    XPUPERF_ASSIGN_OR_RETURN(const uint64_t size, InFile(dir + "/size", ParseSysfsSize(size_text)));
    XPUPERF_ASSIGN_OR_RETURN(const std::string shared_text,
                             ReadTrimmedFile(dir + "/shared_cpu_list"));
    XPUPERF_ASSIGN_OR_RETURN(std::vector<int> shared,
                             InFile(dir + "/shared_cpu_list", ParseSysfsCpuList(shared_text)));
    // Some kernels and hypervisors omit the line size; 0 means unknown.
    auto line = ReadIntFile(dir + "/coherency_line_size");
    const int line_bytes = line.ok() ? *line : 0;
    (*caches)[CacheKey{level, CacheTypeName(type), size, line_bytes}].insert(std::move(shared));
  }
  return Status::Ok();
}

}  // namespace

Result<uint64_t> ParseSysfsSize(std::string_view text) {
  const std::string_view trimmed = TrimWhitespace(text);
  std::string_view digits = trimmed;
  uint64_t multiplier = 1;
  if (!digits.empty()) {
    switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
      case 'K':
        multiplier = uint64_t{1} << 10;
        break;
      case 'M':
        multiplier = uint64_t{1} << 20;
        break;
      case 'G':
        multiplier = uint64_t{1} << 30;
        break;
      default:
        break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  // ParseUnsigned trims, so "3 K" would slip through: the digits must reach the suffix.
  const std::optional<uint64_t> value =
      digits == TrimWhitespace(digits) ? ParseUnsigned(digits) : std::nullopt;
  if (!value || *value > UINT64_MAX / multiplier) {
    return MakeError(ErrorCode::kParse,
                     "bad size '" + std::string(trimmed) +
                         "' (expected digits with an optional K, M or G suffix)");
  }
  return *value * multiplier;
}

Result<std::vector<int>> ParseSysfsCpuList(std::string_view text) {
  const std::string_view list = TrimWhitespace(text);
  std::vector<int> cpus;
  if (list.empty()) return cpus;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, comma - start);
    const size_t dash = item.find('-');
    // Items are "N" or "N-M"; blanks inside are not kernel output, so refuse them.
    const bool has_blank = item.find_first_of(" \t\r\n") != std::string_view::npos;
    const std::optional<uint64_t> first =
        has_blank ? std::nullopt : ParseUnsigned(item.substr(0, dash));
    const std::optional<uint64_t> last =
        dash == std::string_view::npos || has_blank ? first : ParseUnsigned(item.substr(dash + 1));
    if (!first || !last || *first > *last || *last > kMaxCpuNumber) {
      return MakeError(ErrorCode::kParse,
                       "bad cpu list '" + std::string(list) + "' at '" + std::string(item) + "'");
    }
    for (uint64_t cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    start = comma + 1;
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

Result<Topology> ReadTopologyFromSysfs(const std::string& root) {
  const std::string cpu_root = JoinRoot(root, "/sys/devices/system/cpu");
  std::vector<int> cpus;
  if (auto online = ReadTrimmedFile(cpu_root + "/online"); online.ok()) {
    XPUPERF_ASSIGN_OR_RETURN(cpus, InFile(cpu_root + "/online", ParseSysfsCpuList(*online)));
  } else {
    cpus = NumberedEntries(cpu_root, "cpu");
  }
  if (cpus.empty()) return MakeError(ErrorCode::kNotFound, "no CPUs under " + cpu_root);

  std::set<int> packages;
  std::set<std::pair<int, int>> cores;
  std::map<CacheKey, std::set<std::vector<int>>> caches;
  for (int cpu : cpus) {
    const std::string cpu_dir = cpu_root + "/cpu" + std::to_string(cpu);
    XPUPERF_ASSIGN_OR_RETURN(const int package,
                             ReadIntFile(cpu_dir + "/topology/physical_package_id"));
    XPUPERF_ASSIGN_OR_RETURN(const int core, ReadIntFile(cpu_dir + "/topology/core_id"));
    packages.insert(package);
    cores.insert({package, core});
    XPUPERF_RETURN_IF_ERROR(AddCpuCaches(cpu_dir, &caches));
  }

  Topology topology;
  topology.source = "sysfs";
  topology.packages = static_cast<int>(packages.size());
  topology.cores = static_cast<int>(cores.size());
  topology.threads = static_cast<int>(cpus.size());
  // A kernel built without NUMA has no node directory: the whole machine is one node.
  const auto nodes = NumberedEntries(JoinRoot(root, "/sys/devices/system/node"), "node");
  topology.numa_nodes = std::max(1, static_cast<int>(nodes.size()));
  for (const auto& [key, instances] : caches) {
    const auto& [level, type, size, line] = key;
    topology.caches.push_back(
        CacheLevel{level, type, size, static_cast<int>(instances.size()), line});
  }
  return topology;
}

}  // namespace xpuperf::cpu

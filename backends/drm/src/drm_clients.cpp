#include "xpuperf/drm/drm_clients.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <set>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::drm {
namespace {

constexpr unsigned kDrmMajor = 226;

template <typename Map>
void AddCounters(Map& into, const Map& from) {
  for (const auto& [key, value] : from) into[key] += value;
}

}  // namespace

bool IsDrmCharacterDevice(const std::string& fd_path) {
  struct stat st {};
  if (::stat(fd_path.c_str(), &st) != 0) return false;
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == kDrmMajor;
}

std::vector<ProcessGpuUsage> ScanDrmProcesses(const std::string& root, const std::string& driver,
                                              const DrmFdTest& is_drm_fd) {
  std::map<std::pair<std::string, int>, ProcessGpuUsage> by_device_and_pid;
  std::set<std::pair<std::string, uint64_t>> seen_clients;
  const std::string proc = JoinRoot(root, "/proc");
  auto pids = ListDirectory(proc);
  if (!pids.ok()) return {};
  for (const std::string& entry : *pids) {
    const std::optional<uint64_t> pid = ParseUnsigned(entry);
    if (!pid || *pid > 0x7fffffff) continue;
    const std::string dir = Concat(proc, "/", entry);
    auto fds = ListDirectory(dir + "/fd");
    if (!fds.ok()) continue;  // exited, or another user's process
    std::string command;
    for (const std::string& fd : *fds) {
      if (!ParseUnsigned(fd) || !is_drm_fd(Concat(dir, "/fd/", fd))) continue;
      auto text = ReadFileToString(Concat(dir, "/fdinfo/", fd));
      if (!text.ok()) continue;
      auto usage = ParseDrmFdinfo(*text);
      if (!usage.ok() || usage->driver != driver) continue;
      if (usage->client_id && !seen_clients.insert({usage->pdev, *usage->client_id}).second) {
        continue;  // another fd of a client already counted
      }
      if (command.empty()) {
        auto comm = ReadTrimmedFile(dir + "/comm");
        command = comm.ok() ? *comm : entry;
      }
      ProcessGpuUsage& process = by_device_and_pid[{usage->pdev, static_cast<int>(*pid)}];
      process.pid = static_cast<int>(*pid);
      process.command = command;
      process.pdev = usage->pdev;
      AddCounters(process.engine_busy_ns, usage->engine_busy_ns);
      AddCounters(process.engine_cycles, usage->engine_cycles);
      // Total cycles are the GPU timestamp, the same for every client: keep the largest.
      for (const auto& [engine, cycles] : usage->total_cycles) {
        process.total_cycles[engine] = std::max(process.total_cycles[engine], cycles);
      }
      for (const auto& [engine, capacity] : usage->engine_capacity) {
        process.engine_capacity[engine] = std::max(process.engine_capacity[engine], capacity);
      }
      AddCounters(process.legacy_ring_percent, usage->legacy_ring_percent);
      if (auto bytes = DeviceMemoryBytes(*usage)) {
        process.device_memory_bytes = process.device_memory_bytes.value_or(0) + *bytes;
      }
    }
  }
  std::vector<ProcessGpuUsage> out;
  out.reserve(by_device_and_pid.size());
  for (auto& [key, process] : by_device_and_pid) out.push_back(std::move(process));
  return out;
}

ProcessBusyTracker::Busy ProcessBusyTracker::Update(const std::vector<ProcessGpuUsage>& processes,
                                                    int64_t monotonic_ns) {
  Busy busy;
  const int64_t wall = monotonic_ns - previous_ns_;
  std::map<std::pair<std::string, int>, ProcessGpuUsage> current;
  for (const ProcessGpuUsage& process : processes) {
    const auto key = std::pair{process.pdev, process.pid};
    current[key] = process;
    std::map<std::string, double>& engines = busy[key];
    for (const auto& [ring, percent] : process.legacy_ring_percent) {
      engines[ring] = std::min(percent, 100.0);
    }
    if (!has_previous_ || wall <= 0) continue;
    auto before = previous_.find(key);
    if (before == previous_.end()) continue;
    auto capacity = [&](const std::string& engine) {
      auto it = process.engine_capacity.find(engine);
      return it == process.engine_capacity.end() ? 1.0 : static_cast<double>(it->second);
    };
    for (const auto& [engine, ns] : process.engine_busy_ns) {
      auto it = before->second.engine_busy_ns.find(engine);
      const uint64_t old = it == before->second.engine_busy_ns.end() ? 0 : it->second;
      if (ns < old) continue;
      engines[engine] =
          std::min(100.0, 100.0 * static_cast<double>(ns - old) / wall / capacity(engine));
    }
    for (const auto& [engine, cycles] : process.engine_cycles) {
      auto old_cycles = before->second.engine_cycles.find(engine);
      auto old_total = before->second.total_cycles.find(engine);
      auto total = process.total_cycles.find(engine);
      if (old_cycles == before->second.engine_cycles.end() ||
          old_total == before->second.total_cycles.end() || total == process.total_cycles.end()) {
        continue;
      }
      if (cycles < old_cycles->second || total->second <= old_total->second) continue;
      engines[engine] = std::min(100.0, 100.0 * static_cast<double>(cycles - old_cycles->second) /
                                            static_cast<double>(total->second - old_total->second) /
                                            capacity(engine));
    }
  }
  // A process seen for the first time has no rates yet; an engine a client did not print before
  // (amdgpu omits zero counters) counts from 0.
  previous_ = std::move(current);
  previous_ns_ = monotonic_ns;
  has_previous_ = true;
  return busy;
}

std::map<std::string, std::map<std::string, double>> DeviceBusyFromClients(
    const ProcessBusyTracker::Busy& busy) {
  std::map<std::string, std::map<std::string, double>> device;
  for (const auto& [key, engines] : busy) {
    for (const auto& [engine, percent] : engines) {
      double& total = device[key.first][engine];
      total = std::min(100.0, total + percent);
    }
  }
  return device;
}

}  // namespace xpuperf::drm

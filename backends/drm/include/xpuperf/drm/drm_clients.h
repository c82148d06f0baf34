// Which processes use a GPU, and how much: every /proc/<pid>/fd entry that is a DRM device is read
// through its sibling /proc/<pid>/fdinfo/<fd> (nvtop's method). Fds of one DRM client (dup, fork)
// are counted once, by (drm-pdev, drm-client-id). Reading other users' processes needs root or
// CAP_SYS_PTRACE; those processes are simply not seen.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/drm/fdinfo.h"

namespace xpuperf::drm {

// Decides whether /proc/<pid>/fd/<n> is a DRM device. The real test stat()s it (a character device
// of major 226); tests inject one, because a recorded tree cannot hold device links.
using DrmFdTest = std::function<bool(const std::string& fd_path)>;
bool IsDrmCharacterDevice(const std::string& fd_path);

// One process on one device: its clients' counters summed.
struct ProcessGpuUsage {
  int pid = 0;
  std::string command;  // /proc/<pid>/comm
  std::string pdev;     // "0000:03:00.0"
  std::map<std::string, uint64_t> engine_busy_ns;
  std::map<std::string, uint64_t> engine_cycles;
  std::map<std::string, uint64_t> total_cycles;
  std::map<std::string, uint64_t> engine_capacity;  // absent = 1
  std::map<std::string, double> legacy_ring_percent;
  std::optional<uint64_t> device_memory_bytes;  // nullopt when no client printed a memory key
};

// Every process using a device of `driver` under root/proc, sorted by (pdev, pid).
std::vector<ProcessGpuUsage> ScanDrmProcesses(const std::string& root, const std::string& driver,
                                              const DrmFdTest& is_drm_fd);

// Busy share per engine between two scans: Δbusy-ns / Δwall-ns (amdgpu, i915) or
// Δcycles / Δtotal-cycles (xe), divided by the engine's capacity, in percent, capped at 100.
// Old-format amdgpu rings report their own percentages. A counter that went backwards (a client
// closed and another reused the id) gives no value for that engine. Not thread-safe.
class ProcessBusyTracker {
 public:
  // key: (pdev, pid) -> engine -> percent. Empty on the first call.
  using Busy = std::map<std::pair<std::string, int>, std::map<std::string, double>>;
  Busy Update(const std::vector<ProcessGpuUsage>& processes, int64_t monotonic_ns);

 private:
  std::map<std::pair<std::string, int>, ProcessGpuUsage> previous_;
  int64_t previous_ns_ = 0;
  bool has_previous_ = false;
};

// Device busy from clients, per engine: the sum over its processes, capped at 100 (nvtop's
// "gpu util = sum of processes"); pdev -> engine -> percent.
std::map<std::string, std::map<std::string, double>> DeviceBusyFromClients(
    const ProcessBusyTracker::Busy& busy);

}  // namespace xpuperf::drm

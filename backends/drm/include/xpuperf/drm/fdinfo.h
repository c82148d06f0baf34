// Per-client DRM usage from /proc/<pid>/fdinfo/<fd> (kernel Documentation/gpu/drm-usage-stats):
// "drm-driver", "drm-pdev", "drm-client-id", "drm-engine-<name>: N ns" (amdgpu, i915),
// "drm-cycles-<class>" / "drm-total-cycles-<class>" (xe), and memory keys "drm-memory-<region>",
// "drm-total-<region>", "drm-resident-<region>" in KiB/MiB. The pre-5.19 amdgpu format ("pdev",
// "vram mem: N kB", "gfx0: 12.50%") is read too. Pure functions of the text; safe on any input.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::drm {

struct DrmClientUsage {
  std::string driver;                              // "amdgpu", "i915", "xe"
  std::string pdev;                                // PCI slot of the device: "0000:03:00.0"
  std::optional<uint64_t> client_id;               // fds sharing one client print the same id
  std::map<std::string, uint64_t> engine_busy_ns;  // "gfx" -> cumulative busy ns
  std::map<std::string, uint64_t> engine_cycles;   // xe: "rcs" -> busy cycles
  std::map<std::string, uint64_t> total_cycles;    // xe: "rcs" -> GPU timestamp cycles
  // drm-engine-capacity-<name>: identical engines behind one name (busy can reach capacity x 100%).
  std::map<std::string, uint64_t> engine_capacity;
  std::map<std::string, double> legacy_ring_percent;  // old amdgpu: "gfx0" -> 12.5
  // Memory keys without the "drm-"/"amd-" prefix ("memory-vram", "total-local0",
  // "resident-vram0", "memory-visible-vram"), in bytes.
  std::map<std::string, uint64_t> memory_bytes;
  bool legacy_format = false;  // the pre-5.19 amdgpu keys were used
};

// kParse "not a DRM client" when the text has neither drm-driver nor the legacy pdev key.
Result<DrmClientUsage> ParseDrmFdinfo(std::string_view text);

// Device memory the client holds, in bytes: amdgpu "drm-memory-vram", i915 "drm-total-local0",
// xe "drm-total-vram0" (each falling back to the resident key); nullopt when the text has none.
std::optional<uint64_t> DeviceMemoryBytes(const DrmClientUsage& usage);

// "512 KiB" -> 524288, "3 MiB", "7 GiB", "12" (bytes), "4 kB" (old amdgpu, 1024 bytes).
std::optional<uint64_t> ParseMemoryAmount(std::string_view text);

}  // namespace xpuperf::drm

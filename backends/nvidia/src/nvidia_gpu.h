// Internal to the NVIDIA backend: one GPU as NVML sees it, and its discovery.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nvml_abi.h"
#include "nvml_library.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf::nvidia {

// One GPM metric value from the latest pair of samples.
struct GpmValue {
  nvml::Return status = nvml::kErrorNotSupported;
  double value = 0;
};

struct Gpu {
  Device device;
  nvml::Device handle = nullptr;
  std::string name;  // NVML product name, for reasons ("... not supported on NVIDIA A10")

  // MIG. On a GPU: whether MIG mode is on (then NVML has no utilisation rates for it). On a MIG
  // device (device.partition set): `parent` is the index of its GPU in the backend's list.
  bool mig_enabled = false;
  int parent = -1;
  bool is_mig() const { return parent >= 0; }

  // Set once NVML answers GPU_IS_LOST or RESET_REQUIRED; the handle is not used again.
  bool lost = false;
  std::string lost_reason;  // "no data: GPU lost (fell off the bus): <query> returned ..."

  // GPM (Hopper and newer): two samples, the newer one taken at gpm_newest_ns (monotonic).
  bool gpm_supported = false;
  std::string gpm_unsupported_reason;
  nvml::GpmSample gpm_samples[2] = {nullptr, nullptr};
  int gpm_newest = -1;  // index into gpm_samples; -1 before the first sample
  int64_t gpm_newest_ns = 0;
  // Values of this Collect; empty with gpm_no_data set when there are none.
  std::map<unsigned, GpmValue> gpm_values;
  std::string gpm_no_data;

  // XID events.
  bool xid_registered = false;
  std::string xid_unsupported_reason;
  std::optional<unsigned long long> last_xid;
  uint64_t xid_count = 0;
};

// NVML's answer for a GPU that is gone: GPU_IS_LOST (off the bus) or RESET_REQUIRED.
bool IsLostCode(nvml::Return code);
// Marks the GPU lost with the reason every later reading of it carries.
void MarkLost(Gpu& gpu, std::string_view query, nvml::Return code);

// Driver facts shared by every GPU ("550.54.15", "12.4"); empty when NVML does not say.
struct DriverInfo {
  std::string driver_version;
  std::string cuda_driver_version;
};
DriverInfo ReadDriverInfo(const NvmlLibrary& library);

// One Gpu per NVML index the library hands out a handle for ("nvidia<index>"). A GPU whose handle
// or identity query answers GPU_IS_LOST is kept, marked lost, so that it is reported as such;
// other per-index failures (no permission) skip the index.
// kUnavailable when NVML cannot count the GPUs.
Result<std::vector<Gpu>> DiscoverGpus(const NvmlLibrary& library, const DriverInfo& driver);

// The MIG devices of `gpus[parent]` when its MIG mode is on (sets its mig_enabled): one per MIG
// handle NVML hands out, with id "<parent id>/gi<GPU instance>/ci<compute instance>", its own UUID
// ("MIG-…") and memory, and the profile from its name ("NVIDIA A100-SXM4-40GB MIG 1g.5gb").
// Nothing when the driver lacks the MIG calls, the GPU cannot do MIG or MIG mode is off.
std::vector<Gpu> DiscoverMigDevices(const NvmlLibrary& library, std::vector<Gpu>& gpus, int parent);
// "1g.5gb" from a MIG device's NVML name ("NVIDIA A100-SXM4-40GB MIG 1g.5gb"); empty if none.
std::string MigProfileFromName(std::string_view name);

// "hopper" for NVML architecture 9; empty for codes this table does not know.
std::string_view ArchitectureName(unsigned int code);
// "0-3,8" for a CPU bitmask given as 64-bit words (bit i of word w is CPU 64w + i).
std::string CpuListFromMask(const unsigned long* words, size_t count);

}  // namespace xpuperf::nvidia

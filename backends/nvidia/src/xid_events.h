// Internal to the NVIDIA backend: XID errors, which NVML reports only as events.
#pragma once

#include <vector>

#include "nvidia_gpu.h"
#include "nvml_library.h"

namespace xpuperf::nvidia {

// One event set for every GPU that supports critical-XID events.
class XidWatcher {
 public:
  // Registers each GPU (setting gpu.xid_registered, or gpu.xid_unsupported_reason).
  XidWatcher(const NvmlLibrary& library, std::vector<Gpu>& gpus);
  ~XidWatcher();
  XidWatcher(const XidWatcher&) = delete;
  XidWatcher& operator=(const XidWatcher&) = delete;

  // Takes every pending event without waiting: last_xid and xid_count of the GPU it names.
  void Drain(std::vector<Gpu>& gpus);

 private:
  const NvmlLibrary& library_;
  nvml::EventSet set_ = nullptr;
};

}  // namespace xpuperf::nvidia

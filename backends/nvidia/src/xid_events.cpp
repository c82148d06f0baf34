#include "xid_events.h"

#include <fmt/format.h>

namespace xpuperf::nvidia {

XidWatcher::XidWatcher(const NvmlLibrary& library, std::vector<Gpu>& gpus) : library_(library) {
  const NvmlApi& api = library.api();
  std::string common_reason;
  if (!api.has_events()) {
    common_reason =
        fmt::format("unsupported: driver has no {} (XIDs are reported only as NVML events)",
                    api.missing_event_symbol);
  } else if (const nvml::Return r = api.event_set_create(&set_); r != nvml::kSuccess) {
    set_ = nullptr;
    common_reason = fmt::format("unsupported: nvmlEventSetCreate failed: {}", library.Describe(r));
  }
  for (Gpu& gpu : gpus) {
    if (!common_reason.empty()) {
      gpu.xid_unsupported_reason = common_reason;
      continue;
    }
    // XIDs are events of the physical GPU; a MIG device's readings say so.
    if (gpu.lost || gpu.is_mig()) continue;
    unsigned long long types = 0;
    nvml::Return r = api.device_get_supported_event_types(gpu.handle, &types);
    if (r == nvml::kSuccess && (types & nvml::kEventXidCriticalError) == 0)
      r = nvml::kErrorNotSupported;
    if (r == nvml::kSuccess)
      r = api.device_register_events(gpu.handle, nvml::kEventXidCriticalError, set_);
    if (IsLostCode(r)) {
      MarkLost(gpu, "nvmlDeviceRegisterEvents", r);
    } else if (r == nvml::kErrorNotSupported) {
      gpu.xid_unsupported_reason =
          fmt::format("unsupported: XID events not supported on {}", gpu.name);
    } else if (r != nvml::kSuccess) {
      gpu.xid_unsupported_reason = fmt::format(
          "unsupported: nvmlDeviceRegisterEvents (XID) failed: {}", library.Describe(r));
    } else {
      gpu.xid_registered = true;
    }
  }
}

XidWatcher::~XidWatcher() {
  if (set_ != nullptr) library_.api().event_set_free(set_);
}

void XidWatcher::Drain(std::vector<Gpu>& gpus) {
  if (set_ == nullptr) return;
  // Bounded, so a library that keeps answering cannot hold a Collect forever.
  for (int i = 0; i < 1024; ++i) {
    nvml::EventData event{};
    if (library_.api().event_set_wait(set_, &event, 0) != nvml::kSuccess) return;
    if ((event.eventType & nvml::kEventXidCriticalError) == 0) continue;
    for (Gpu& gpu : gpus) {
      if (gpu.handle != nullptr && gpu.handle == event.device) {
        gpu.last_xid = event.eventData;
        ++gpu.xid_count;
      }
    }
  }
}

}  // namespace xpuperf::nvidia

#include <fmt/format.h>

#include <algorithm>

#include "xpuperf/exporter/pod_attribution.h"

namespace xpuperf::exporter {

bool IsAttributedResource(std::string_view name, const std::vector<std::string>& extra) {
  if (name == "nvidia.com/gpu" || name == "google.com/tpu" || name.starts_with("nvidia.com/mig-")) {
    return true;
  }
  return std::find(extra.begin(), extra.end(), name) != extra.end();
}

std::string NormaliseDeviceId(std::string_view id) {
  if (const size_t replica = id.find("::"); replica != std::string_view::npos) {
    id = id.substr(0, replica);
  }
  // GKE's forms: "nvidia0" (a GPU), "nvidia0/gi1" (its GPU instance 1, a MIG device) and
  // "nvidia0/gi1/vgpu0" (a time-shared replica of it): the replica suffix goes.
  if (id.starts_with("nvidia")) {
    if (const size_t vgpu = id.find("/vgpu"); vgpu != std::string_view::npos)
      id = id.substr(0, vgpu);
  }
  return std::string(id);
}

std::vector<PodRef> ConsumersOf(const PodMapping& mapping, const Device& device) {
  std::vector<std::string> keys;
  if (!device.uuid.empty()) keys.push_back(device.uuid);
  keys.push_back(device.id);
  if (device.is_partition()) {
    // A MIG device is held by its MIG UUID or GKE's "nvidia<N>/gi<M>"; its GPU is not the pod's.
    keys.push_back(
        fmt::format("{}/gi{}", device.partition.parent, device.partition.gpu_instance_id));
  }
  if (device.backend == "tpu") {
    keys.push_back(std::to_string(device.index));
    keys.push_back("accel" + std::to_string(device.index));
  }
  std::vector<PodRef> out;
  for (const std::string& key : keys) {
    auto it = mapping.find(key);
    if (it == mapping.end()) continue;
    for (const PodRef& ref : it->second) {
      if (std::find(out.begin(), out.end(), ref) == out.end()) out.push_back(ref);
    }
  }
  return out;
}

}  // namespace xpuperf::exporter

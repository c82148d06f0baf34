// Kubernetes pod attribution: which pod/namespace/container holds each GPU and TPU, from the
// kubelet's pod-resources gRPC API (v1 `PodResourcesLister/List`, falling back to v1alpha1). The
// mapping refreshes on its own thread, never inside a scrape, and survives the socket coming and
// going (kubelet restarts): while the socket is absent there are no pod labels, and they return
// with it.
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/exporter/exporter.h"

namespace xpuperf::exporter {

inline constexpr std::string_view kDefaultPodResourcesSocket =
    "/var/lib/kubelet/pod-resources/kubelet.sock";

struct PodRef {
  std::string pod;
  std::string namespace_name;
  std::string container;
  friend bool operator==(const PodRef&, const PodRef&) = default;
};

// Kubelet device id (normalised) -> the containers it is assigned to.
using PodMapping = std::map<std::string, std::vector<PodRef>>;

// nvidia.com/gpu, nvidia.com/mig-*, google.com/tpu, and the extra names.
bool IsAttributedResource(std::string_view resource_name, const std::vector<std::string>& extra);
// Drops what does not name the device itself: a time-slicing replica suffix ("GPU-…::3",
// GKE's "nvidia0/gi1/vgpu0" -> "nvidia0/gi1").
std::string NormaliseDeviceId(std::string_view kubelet_id);
// The containers holding `device`: matched by UUID (GPU-… or, for a MIG device, MIG-…), by
// xpuperf's id ("nvidia0" is GKE's device-name form too), for a MIG device by GKE's
// "nvidia<N>/gi<M>", and for TPUs by chip index ("0", "accel0").
std::vector<PodRef> ConsumersOf(const PodMapping& mapping, const Device& device);

struct PodAttributionOptions {
  std::string socket_path = std::string(kDefaultPodResourcesSocket);
  std::vector<std::string> resource_names;  // extra resource names to attribute
  double refresh_seconds = 10;
  double rpc_timeout_seconds = 5;
};

struct PodAttributionState {
  bool socket_present = false;
  std::string api_version;  // "v1", "v1alpha1" or empty
  std::string error;        // last failure; empty after a success
  size_t devices = 0;       // device ids assigned to containers
};

class PodAttribution {
 public:
  // Starts the refresh thread; the first refresh happens before this returns.
  static std::unique_ptr<PodAttribution> Start(PodAttributionOptions options);
  ~PodAttribution();

  std::vector<PodRef> For(const Device& device) const;
  // pod/namespace/container label sets, for ExporterOptions::attribution. The returned function
  // holds a reference to this object, which must outlive the exporter using it.
  DeviceAttribution AsAttribution() const;
  PodAttributionState state() const;

  class Impl;

 private:
  explicit PodAttribution(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::exporter

// The pod of each process using a device, for devices several pods share (time-slicing, MPS):
// the process's cgroup names its pod's UID and its container's id (cgroup v1 and v2, cgroupfs and
// systemd drivers), and the kubelet's pod list (`GET /pods` on its HTTPS port, with the service
// account's bearer token) names the pod, namespace and container for them. The pod-resources API
// (pod_attribution.h) says which pods hold a device but not which process is whose.
// The list is fetched on a thread of its own every refresh, bounded in size and time; a pid met
// for the first time is looked up at the next refresh. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/sample.h"
#include "xpuperf/core/status.h"

namespace xpuperf::exporter {

struct CgroupPod {
  std::string uid;           // "0f5c2f5e-7c1d-4b7a-9d55-1e0f3c2b9a10"
  std::string container_id;  // 64 hex digits; empty when the path names none
};

// The pod of a /proc/PID/cgroup text: a path component "pod<uid>" (underscores of the systemd
// driver read as dashes), and the last component's 64-hex container id
// ("cri-containerd-<id>.scope", "docker-<id>.scope", "crio-<id>.scope" or the bare id). nullopt
// outside a pod.
std::optional<CgroupPod> PodOfCgroup(std::string_view cgroup_text);

struct KubeletPod {
  std::string name;
  std::string namespace_name;
  std::map<std::string, std::string> containers;  // container id (no runtime prefix) -> name
  std::map<std::string, std::string> labels;      // metadata.labels
};

// A pod label's key as a Prometheus label name, as kube-state-metrics writes them:
// "label_" + the key with every character outside [a-zA-Z0-9_] replaced by '_'
// ("app.kubernetes.io/name" -> "label_app_kubernetes_io_name").
std::string PodLabelName(std::string_view key);

// The kubelet's PodList JSON (`/pods`): pod UID -> its name, namespace and containers (from the
// container, init container and ephemeral container statuses). kParse for text that is not a
// PodList.
Result<std::map<std::string, KubeletPod>> ParseKubeletPods(std::string_view json);

struct ProcessPodsOptions {
  std::string pods_url;    // "https://127.0.0.1:10250/pods"
  std::string token_file;  // bearer token (the service account's); empty: none
  std::string ca_file;     // verifies the kubelet's certificate; empty: the system's
  bool insecure = false;   // no certificate verification (a kubelet with a self-signed one)
  std::string root = "/";  // where /proc is
  double refresh_seconds = 10;
  double timeout_seconds = 5;           // the whole request
  size_t max_bytes = size_t{64} << 20;  // a larger answer is refused
  // Pod labels (metadata.labels keys) to put on xpuperf_device_pod_info as PodLabelName(key);
  // values of at most 256 printable characters (others are left out).
  std::vector<std::string> pod_labels;
};

struct ProcessPodsState {
  std::string error;  // the last fetch's problem; empty after a success
  size_t pods = 0;    // in the last good list
  size_t processes_in_pods = 0;
};

class ProcessPods {
 public:
  // Fetches once before returning, then on its own thread.
  static std::unique_ptr<ProcessPods> Start(ProcessPodsOptions options);
  ~ProcessPods();
  ProcessPods(const ProcessPods&) = delete;
  ProcessPods& operator=(const ProcessPods&) = delete;

  // {pod, namespace, container} of a process; empty when unknown (noted for the next refresh).
  Labels ForProcess(int pid) const;
  // The allowed labels of a pod, by namespace and name; empty when unknown or none allowed.
  Labels LabelsOfPod(const std::string& namespace_name, const std::string& pod) const;
  ProcessPodsState state() const;
  void Refresh();

  class Impl;

 private:
  explicit ProcessPods(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xpuperf::exporter

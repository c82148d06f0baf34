#include "xpuperf/exporter/pod_attribution.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "periodic_thread.h"
#include "podresources_v1.grpc.pb.h"
#include "podresources_v1alpha1.grpc.pb.h"

namespace xpuperf::exporter {

namespace {

constexpr int kMaxPodResourcesBytes = 64 << 20;

bool SocketExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

template <typename Response>
PodMapping MappingFrom(const Response& response, const std::vector<std::string>& extra) {
  PodMapping mapping;
  for (const auto& pod : response.pod_resources()) {
    for (const auto& container : pod.containers()) {
      for (const auto& devices : container.devices()) {
        if (!IsAttributedResource(devices.resource_name(), extra)) continue;
        for (const std::string& id : devices.device_ids()) {
          auto& refs = mapping[NormaliseDeviceId(id)];
          PodRef ref{pod.name(), pod.namespace_(), container.name()};
          if (std::find(refs.begin(), refs.end(), ref) == refs.end()) refs.push_back(ref);
        }
      }
    }
  }
  return mapping;
}

}  // namespace

class PodAttribution::Impl {
 public:
  explicit Impl(PodAttributionOptions options) : options_(std::move(options)) {}

  // The first refresh before the thread starts; the thread is stopped first on destruction.
  void Run() {
    Refresh();
    thread_ = std::make_unique<PeriodicThread>(options_.refresh_seconds, [this] { Refresh(); });
  }

  // One List over the socket; the mapping is swapped in whole.
  void Refresh() {
    PodAttributionState state;
    state.socket_present = SocketExists(options_.socket_path);
    PodMapping mapping;
    if (state.socket_present) {
      // A node with thousands of pods answers more than gRPC's default 4 MiB (dcgm-exporter#509):
      // the answer is bounded at 64 MiB instead.
      grpc::ChannelArguments arguments;
      arguments.SetMaxReceiveMessageSize(kMaxPodResourcesBytes);
      auto channel = grpc::CreateCustomChannel("unix://" + options_.socket_path,
                                               grpc::InsecureChannelCredentials(), arguments);
      const auto deadline =
          std::chrono::system_clock::now() +
          std::chrono::milliseconds(static_cast<int64_t>(options_.rpc_timeout_seconds * 1000));
      grpc::ClientContext context;
      context.set_deadline(deadline);
      v1::ListPodResourcesResponse response;
      grpc::Status status = v1::PodResourcesLister::NewStub(channel)->List(
          &context, v1::ListPodResourcesRequest(), &response);
      if (status.ok()) {
        mapping = MappingFrom(response, options_.resource_names);
        state.api_version = "v1";
      } else if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
        grpc::ClientContext alpha_context;
        alpha_context.set_deadline(deadline);
        v1alpha1::ListPodResourcesResponse alpha;
        status = v1alpha1::PodResourcesLister::NewStub(channel)->List(
            &alpha_context, v1alpha1::ListPodResourcesRequest(), &alpha);
        if (status.ok()) {
          mapping = MappingFrom(alpha, options_.resource_names);
          state.api_version = "v1alpha1";
        }
      }
      if (!status.ok()) state.error = "pod-resources List failed: " + status.error_message();
    }
    std::lock_guard<std::mutex> lock(data_mutex_);
    // A failed call keeps the last good mapping (a kubelet restarting); an absent socket clears
    // it, so a device is never attributed to a pod the kubelet no longer reports.
    if (!state.socket_present || state.error.empty()) mapping_ = std::move(mapping);
    state.devices = mapping_.size();
    state_ = std::move(state);
  }

  PodAttributionOptions options_;
  mutable std::mutex data_mutex_;
  PodMapping mapping_;
  PodAttributionState state_;
  std::unique_ptr<PeriodicThread> thread_;  // last: stopped before the members it uses
};

PodAttribution::PodAttribution(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PodAttribution::~PodAttribution() = default;

std::unique_ptr<PodAttribution> PodAttribution::Start(PodAttributionOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->Run();
  return std::unique_ptr<PodAttribution>(new PodAttribution(std::move(impl)));
}

std::vector<PodRef> PodAttribution::For(const Device& device) const {
  std::lock_guard<std::mutex> lock(impl_->data_mutex_);
  return ConsumersOf(impl_->mapping_, device);
}

DeviceAttribution PodAttribution::AsAttribution() const {
  return [this](const Device& device) {
    std::vector<Labels> out;
    for (const PodRef& ref : For(device)) {
      Labels labels;
      labels.Set("pod", ref.pod);
      labels.Set("namespace", ref.namespace_name);
      if (!ref.container.empty()) labels.Set("container", ref.container);
      out.push_back(std::move(labels));
    }
    return out;
  };
}

PodAttributionState PodAttribution::state() const {
  std::lock_guard<std::mutex> lock(impl_->data_mutex_);
  return impl_->state_;
}

}  // namespace xpuperf::exporter

// Processes to pods: cgroup paths, the kubelet's pod list and the refreshed cache (process_pods.h).
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT  // Debian's cpp-httplib.pc defines it already
#define CPPHTTPLIB_OPENSSL_SUPPORT
#endif
#include "xpuperf/exporter/process_pods.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "periodic_thread.h"
#include "text_pieces.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/core/version.h"

namespace xpuperf::exporter {
namespace {

bool IsHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// "containerd://<id>" -> "<id>".
std::string WithoutRuntime(std::string_view id) {
  const size_t scheme = id.find("://");
  return std::string(scheme == std::string_view::npos ? id : id.substr(scheme + 3));
}

constexpr size_t kMaxProcesses = 65536;

}  // namespace

std::optional<CgroupPod> PodOfCgroup(std::string_view cgroup_text) {
  std::optional<CgroupPod> found;
  ForEachPiece(cgroup_text, '\n', [&found](std::string_view line) {
    const std::optional<std::string_view> path = CgroupPath(line);
    if (!path) return true;
    CgroupPod pod;
    std::string_view last;
    ForEachPiece(*path, '/', [&](std::string_view component) {
      if (component.empty()) return true;
      last = component;
      // "pod<uid>", or the systemd driver's "kubepods-burstable-pod<uid_with_underscores>.slice".
      const size_t at = component.rfind("pod");
      if (at == std::string_view::npos) return true;
      std::string_view uid = component.substr(at + 3);
      if (uid.ends_with(".slice")) uid.remove_suffix(6);
      std::string normalised(uid);
      std::replace(normalised.begin(), normalised.end(), '_', '-');
      const bool looks_like_uid =
          normalised.size() == 36 && std::all_of(normalised.begin(), normalised.end(), [](char c) {
            return std::isxdigit(static_cast<unsigned char>(c)) || c == '-';
          });
      if (looks_like_uid) pod.uid = normalised;
      return true;
    });
    if (pod.uid.empty()) return true;
    std::string_view id = last;
    if (id.ends_with(".scope")) id.remove_suffix(6);
    if (const size_t dash = id.rfind('-'); dash != std::string_view::npos) id = id.substr(dash + 1);
    if (id.size() == 64 && IsHex(id)) pod.container_id = std::string(id);
    found = std::move(pod);
    return false;
  });
  return found;
}

std::string PodLabelName(std::string_view key) {
  std::string name = "label_";
  for (char c : key) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return name;
}

Result<std::map<std::string, KubeletPod>> ParseKubeletPods(std::string_view json) {
  const nlohmann::json list = nlohmann::json::parse(json, nullptr, false);
  if (list.is_discarded() || !list.is_object() || !list.contains("items") ||
      !list["items"].is_array()) {
    return MakeError(ErrorCode::kParse, "the kubelet's /pods answer is not a PodList");
  }
  std::map<std::string, KubeletPod> pods;
  for (const nlohmann::json& item : list["items"]) {
    if (!item.is_object()) continue;
    const nlohmann::json& metadata = item.value("metadata", nlohmann::json::object());
    if (!metadata.is_object()) continue;
    const std::string uid = metadata.value("uid", "");
    if (uid.empty()) continue;
    KubeletPod pod;
    pod.name = metadata.value("name", "");
    pod.namespace_name = metadata.value("namespace", "");
    if (metadata.contains("labels") && metadata["labels"].is_object()) {
      for (const auto& [key, value] : metadata["labels"].items()) {
        if (value.is_string()) pod.labels[key] = value.get<std::string>();
      }
    }
    const nlohmann::json& status = item.value("status", nlohmann::json::object());
    if (status.is_object()) {
      for (const char* key :
           {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
        if (!status.contains(key) || !status[key].is_array()) continue;
        for (const nlohmann::json& container : status[key]) {
          if (!container.is_object()) continue;
          const std::string id = container.value("containerID", "");
          if (!id.empty()) pod.containers[WithoutRuntime(id)] = container.value("name", "");
        }
      }
    }
    pods[uid] = std::move(pod);
  }
  return pods;
}

class ProcessPods::Impl {
 public:
  explicit Impl(ProcessPodsOptions options) : options_(std::move(options)) {}

  // The first refresh before the thread starts; the thread is stopped first on destruction.
  void Run() {
    Refresh();
    thread_ = std::make_unique<PeriodicThread>(options_.refresh_seconds, [this] { Refresh(); });
  }

  void Refresh() {
    ProcessPodsState state;
    auto fetched = Fetch();
    std::map<std::string, KubeletPod> pods;
    if (fetched.ok()) {
      pods = std::move(*fetched);
    } else {
      state.error = fetched.error().message;
    }
    std::set<int> asked;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      asked = asked_;
      if (!fetched.ok()) pods = pods_;  // a failed fetch keeps the last good list
    }
    std::map<int, Labels> processes;
    std::set<int> gone;
    for (int pid : asked) {
      auto cgroup = ReadFileToString(JoinRoot(options_.root, fmt::format("/proc/{}/cgroup", pid)));
      if (!cgroup.ok()) {
        gone.insert(pid);
        continue;
      }
      Labels labels;
      if (auto where = PodOfCgroup(*cgroup)) {
        auto pod = pods.find(where->uid);
        if (pod != pods.end()) {
          labels.Set("pod", pod->second.name);
          labels.Set("namespace", pod->second.namespace_name);
          auto container = pod->second.containers.find(where->container_id);
          if (container != pod->second.containers.end() && !container->second.empty()) {
            labels.Set("container", container->second);
          }
        }
      }
      processes[pid] = std::move(labels);
    }
    state.pods = pods.size();
    for (const auto& [pid, labels] : processes) state.processes_in_pods += !labels.empty();
    std::lock_guard<std::mutex> lock(mutex_);
    pods_ = std::move(pods);
    processes_ = std::move(processes);
    for (int pid : gone) asked_.erase(pid);
    state_ = std::move(state);
  }

  Labels ForProcess(int pid) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = processes_.find(pid);
    if (it != processes_.end()) return it->second;
    if (asked_.size() < kMaxProcesses) asked_.insert(pid);
    return {};
  }

  ProcessPodsState state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_;
  }

  Labels LabelsOfPod(const std::string& namespace_name, const std::string& name) const {
    Labels labels;
    if (options_.pod_labels.empty()) return labels;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [uid, pod] : pods_) {
      if (pod.name != name || pod.namespace_name != namespace_name) continue;
      for (const std::string& key : options_.pod_labels) {
        auto it = pod.labels.find(key);
        if (it == pod.labels.end() || it->second.empty() || it->second.size() > 256) continue;
        const bool printable = std::all_of(it->second.begin(), it->second.end(), [](char c) {
          return std::isprint(static_cast<unsigned char>(c)) != 0;
        });
        if (printable) labels.Set(PodLabelName(key), it->second);
      }
      break;
    }
    return labels;
  }

 private:
  // GET the pod list, bounded in bytes and in time (a watchdog stops the client at the deadline).
  Result<std::map<std::string, KubeletPod>> Fetch() {
    static const std::regex kUrl(R"(^(https?://[^/]+)(/.*)?$)");
    std::smatch m;
    if (!std::regex_match(options_.pods_url, m, kUrl)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("bad kubelet pods URL {}", options_.pods_url));
    }
    httplib::Client client(m[1].str());
    const auto timeout =
        std::chrono::milliseconds(static_cast<int64_t>(options_.timeout_seconds * 1000));
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    if (!options_.token_file.empty()) {
      auto token = ReadFileToString(options_.token_file);
      if (!token.ok()) {
        return MakeError(
            ErrorCode::kUnavailable,
            fmt::format("kubelet token {}: {}", options_.token_file, token.error().message));
      }
      std::string text = *token;
      while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
      client.set_bearer_token_auth(text);
    }
    if (!options_.ca_file.empty()) client.set_ca_cert_path(options_.ca_file);
    client.enable_server_certificate_verification(!options_.insecure);
    std::string body;
    bool too_large = false;
    std::mutex watch_mutex;
    std::condition_variable watch_cv;
    bool done = false;
    bool stopped = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::thread watchdog([&] {
      std::unique_lock lock(watch_mutex);
      while (!done) {
        if (std::chrono::steady_clock::now() >= deadline) {
          stopped = true;
          client.stop();
        }
        watch_cv.wait_for(lock, std::chrono::milliseconds(20));
      }
    });
    httplib::Headers headers = {{"User-Agent", std::string("xpuperf/") + kVersion},
                                {"Accept", "application/json"}};
    const std::string path = m[2].matched ? m[2].str() : "/pods";
    auto response = client.Get(path, headers, [&](const char* data, size_t length) {
      if (body.size() + length > options_.max_bytes) {
        too_large = true;
        return false;
      }
      body.append(data, length);
      return true;
    });
    {
      std::lock_guard lock(watch_mutex);
      done = true;
    }
    watch_cv.notify_one();
    watchdog.join();
    if (too_large) {
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("GET {}: the answer is larger than {} bytes", options_.pods_url,
                                   options_.max_bytes));
    }
    if (!response) {
      return MakeError(ErrorCode::kUnavailable,
                       stopped ? fmt::format("GET {}: no complete answer within {} s",
                                             options_.pods_url, options_.timeout_seconds)
                               : fmt::format("GET {}: {}", options_.pods_url,
                                             httplib::to_string(response.error())));
    }
    if (response->status != 200) {
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("GET {}: HTTP {}", options_.pods_url, response->status));
    }
    return ParseKubeletPods(body);
  }

  ProcessPodsOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, KubeletPod> pods_;
  std::map<int, Labels> processes_;
  mutable std::set<int> asked_;
  ProcessPodsState state_;
  std::unique_ptr<PeriodicThread> thread_;  // last: stopped before the members it uses
};

ProcessPods::ProcessPods(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProcessPods::~ProcessPods() = default;

std::unique_ptr<ProcessPods> ProcessPods::Start(ProcessPodsOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->Run();
  return std::unique_ptr<ProcessPods>(new ProcessPods(std::move(impl)));
}

Labels ProcessPods::ForProcess(int pid) const { return impl_->ForProcess(pid); }
ProcessPodsState ProcessPods::state() const { return impl_->state(); }
Labels ProcessPods::LabelsOfPod(const std::string& namespace_name, const std::string& pod) const {
  return impl_->LabelsOfPod(namespace_name, pod);
}
void ProcessPods::Refresh() { impl_->Refresh(); }

}  // namespace xpuperf::exporter

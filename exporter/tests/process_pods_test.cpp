// Processes to pods: cgroup paths of the cgroupfs and systemd drivers (v1 and v2), the kubelet's
// PodList, and the cache against a kubelet stand-in (HTTP on loopback) and a recorded /proc.
#include "xpuperf/exporter/process_pods.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace xpuperf::exporter {
namespace {

namespace fs = std::filesystem;

const std::string kUid = "0f5c2f5e-7c1d-4b7a-9d55-1e0f3c2b9a10";
const std::string kContainer(64, 'a');

TEST(ProcessPodsTest, ThePodOfACgroup) {
  // cgroup v1, cgroupfs driver.
  auto v1 = PodOfCgroup("12:memory:/kubepods/burstable/pod" + kUid + "/" + kContainer + "\n");
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->uid, kUid);
  EXPECT_EQ(v1->container_id, kContainer);
  // cgroup v2, systemd driver: underscores in the slice, the runtime's prefix on the scope.
  std::string systemd_uid = kUid;
  std::replace(systemd_uid.begin(), systemd_uid.end(), '-', '_');
  auto v2 = PodOfCgroup("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
                        systemd_uid + ".slice/cri-containerd-" + kContainer + ".scope\n");
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->uid, kUid);
  EXPECT_EQ(v2->container_id, kContainer);
  // A pod's own cgroup (no container), and processes outside any pod.
  EXPECT_EQ(PodOfCgroup("0::/kubepods/pod" + kUid + "\n")->container_id, "");
  EXPECT_EQ(PodOfCgroup("0::/user.slice/user-1000.slice\n"), std::nullopt);
  EXPECT_EQ(PodOfCgroup("0::/kubepods/podnot-a-uid/abc\n"), std::nullopt);
  EXPECT_EQ(PodOfCgroup("junk"), std::nullopt);
}

std::string PodList() {
  return R"({"kind":"PodList","items":[
    {"metadata":{"name":"infer-1","namespace":"serving","uid":")" +
         kUid + R"(","labels":{"app.kubernetes.io/name":"llm","team":"x\u0001y"}},
     "status":{"containerStatuses":[{"name":"server","containerID":"containerd://)" +
         kContainer + R"("}]}},
    {"metadata":{"name":"no-uid"}},
    {"metadata":{"name":"infer-2","namespace":"serving","uid":"u2"},"status":{}}]})";
}

TEST(ProcessPodsTest, TheKubeletsPodList) {
  auto pods = ParseKubeletPods(PodList());
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  ASSERT_EQ(pods->size(), 2u);
  const KubeletPod& pod = pods->at(kUid);
  EXPECT_EQ(pod.name, "infer-1");
  EXPECT_EQ(pod.namespace_name, "serving");
  EXPECT_EQ(pod.containers.at(kContainer), "server");
  EXPECT_EQ(pod.labels.at("app.kubernetes.io/name"), "llm");
  EXPECT_EQ(PodLabelName("app.kubernetes.io/name"), "label_app_kubernetes_io_name");
  EXPECT_FALSE(ParseKubeletPods("{\"kind\":\"Status\"}").ok());
  EXPECT_FALSE(ParseKubeletPods("not json").ok());
}

TEST(ProcessPodsTest, ProcessesGetTheirPodFromTheKubelet) {
  const fs::path root = fs::temp_directory_path() / ("xpuperf_pods_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "proc/300");
  std::ofstream(root / "proc/300/cgroup")
      << "4:memory:/kubepods/burstable/pod" << kUid << "/" << kContainer << "\n";
  httplib::Server kubelet;
  std::string seen_token;
  size_t padding = 0;
  kubelet.Get("/pods", [&](const httplib::Request& request, httplib::Response& response) {
    seen_token = request.get_header_value("Authorization");
    response.set_content(PodList() + std::string(padding, ' '), "application/json");
  });
  const int port = kubelet.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { kubelet.listen_after_bind(); });
  while (!kubelet.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::ofstream(root / "token") << "secret-token\n";

  ProcessPodsOptions options;
  options.pods_url = "http://127.0.0.1:" + std::to_string(port) + "/pods";
  options.token_file = (root / "token").string();
  options.root = root.string();
  options.refresh_seconds = 3600;  // refreshed by hand
  options.max_bytes = 4096;
  options.pod_labels = {"app.kubernetes.io/name", "team", "missing"};
  auto pods = ProcessPods::Start(options);
  EXPECT_TRUE(pods->ForProcess(300).empty());  // noted, looked up at the next refresh
  pods->Refresh();
  const Labels labels = pods->ForProcess(300);
  EXPECT_EQ(labels.ToString(), "{container=\"server\",namespace=\"serving\",pod=\"infer-1\"}");
  EXPECT_EQ(seen_token, "Bearer secret-token");
  EXPECT_EQ(pods->state().pods, 2u);
  // Only the allowed labels, and only printable values ("team" holds a control character).
  EXPECT_EQ(pods->LabelsOfPod("serving", "infer-1").ToString(),
            "{label_app_kubernetes_io_name=\"llm\"}");
  EXPECT_TRUE(pods->LabelsOfPod("serving", "infer-9").empty());
  EXPECT_EQ(pods->state().processes_in_pods, 1u);
  EXPECT_TRUE(pods->state().error.empty()) << pods->state().error;

  // An answer over the bound is refused; the last good list is kept.
  padding = 8192;
  pods->Refresh();
  EXPECT_NE(pods->state().error.find("larger than 4096 bytes"), std::string::npos)
      << pods->state().error;
  EXPECT_EQ(pods->ForProcess(300).Get("pod"), "infer-1");
  // The process exits: forgotten.
  fs::remove_all(root / "proc/300");
  pods->Refresh();
  EXPECT_TRUE(pods->ForProcess(300).empty());
  kubelet.stop();
  serving.join();
  fs::remove_all(root);
}

}  // namespace
}  // namespace xpuperf::exporter

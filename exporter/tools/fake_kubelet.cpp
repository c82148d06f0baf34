// fake_kubelet SOCKET SCENARIO [--v1alpha1-only]: the kubelet's pod-resources gRPC service on a
// unix socket, answering List from SCENARIO, re-read on every call so a test changes pods by
// rewriting the file. Each scenario line: `NAMESPACE POD CONTAINER RESOURCE ID[,ID...]`; `#` starts
// a comment. With --v1alpha1-only the v1 service is absent (an old kubelet). Runs until killed.
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "podresources_v1.grpc.pb.h"
#include "podresources_v1alpha1.grpc.pb.h"

namespace {

struct Line {
  std::string ns, pod, container, resource;
  std::vector<std::string> ids;
};

std::vector<Line> Load(const std::string& path) {
  std::vector<Line> lines;
  std::ifstream in(path);
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    Line line;
    std::string ids;
    if (!(fields >> line.ns >> line.pod >> line.container >> line.resource >> ids)) continue;
    std::stringstream split(ids);
    for (std::string id; std::getline(split, id, ',');) line.ids.push_back(id);
    lines.push_back(std::move(line));
  }
  return lines;
}

template <typename Response>
void Fill(const std::vector<Line>& lines, Response* response) {
  std::map<std::pair<std::string, std::string>, decltype(response->add_pod_resources())> pods;
  for (const Line& line : lines) {
    auto key = std::make_pair(line.ns, line.pod);
    if (!pods.count(key)) {
      auto* pod = response->add_pod_resources();
      pod->set_name(line.pod);
      pod->set_namespace_(line.ns);
      pods[key] = pod;
    }
    auto* container = pods[key]->add_containers();
    container->set_name(line.container);
    auto* devices = container->add_devices();
    devices->set_resource_name(line.resource);
    for (const std::string& id : line.ids) devices->add_device_ids(id);
  }
}

class V1 final : public v1::PodResourcesLister::Service {
 public:
  explicit V1(std::string path) : path_(std::move(path)) {}
  grpc::Status List(grpc::ServerContext*, const v1::ListPodResourcesRequest*,
                    v1::ListPodResourcesResponse* response) override {
    Fill(Load(path_), response);
    return grpc::Status::OK;
  }

 private:
  std::string path_;
};

class V1Alpha1 final : public v1alpha1::PodResourcesLister::Service {
 public:
  explicit V1Alpha1(std::string path) : path_(std::move(path)) {}
  grpc::Status List(grpc::ServerContext*, const v1alpha1::ListPodResourcesRequest*,
                    v1alpha1::ListPodResourcesResponse* response) override {
    Fill(Load(path_), response);
    return grpc::Status::OK;
  }

 private:
  std::string path_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SOCKET SCENARIO [--v1alpha1-only]\n", argv[0]);
    return 2;
  }
  const bool alpha_only = argc > 3 && std::string(argv[3]) == "--v1alpha1-only";
  V1 v1_service(argv[2]);
  V1Alpha1 alpha_service(argv[2]);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(std::string("unix:") + argv[1], grpc::InsecureServerCredentials());
  if (!alpha_only) builder.RegisterService(&v1_service);
  builder.RegisterService(&alpha_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::fprintf(stderr, "cannot listen on unix:%s\n", argv[1]);
    return 1;
  }
  std::printf("listening\n");
  std::fflush(stdout);
  server->Wait();
  return 0;
}

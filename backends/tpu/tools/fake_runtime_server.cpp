#include "fake_runtime_server.h"

#include <grpcpp/grpcpp.h>

#include <thread>

namespace xpuperf::tpu::testing {

grpc::Status FakeRuntimeServer::Service::Begin() {
  calls.fetch_add(1);
  if (script_.delay.count() > 0) std::this_thread::sleep_for(script_.delay);
  if (script_.fail_with != grpc::StatusCode::OK) {
    return grpc::Status(script_.fail_with, "scripted failure of the fake runtime");
  }
  return grpc::Status::OK;
}

grpc::Status FakeRuntimeServer::Service::GetRuntimeMetric(grpc::ServerContext*,
                                                          const runtime::MetricRequest* request,
                                                          runtime::MetricResponse* response) {
  if (grpc::Status s = Begin(); !s.ok()) return s;
  for (const runtime::TPUMetric& metric : script_.metrics) {
    if (metric.name() == request->metric_name()) {
      *response->mutable_metric() = metric;
      return grpc::Status::OK;
    }
  }
  return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown metric " + request->metric_name());
}

grpc::Status FakeRuntimeServer::Service::ListSupportedMetrics(
    grpc::ServerContext*, const runtime::ListSupportedMetricsRequest*,
    runtime::ListSupportedMetricsResponse* response) {
  if (grpc::Status s = Begin(); !s.ok()) return s;
  for (const runtime::TPUMetric& metric : script_.metrics) {
    response->add_supported_metric()->set_metric_name(metric.name());
  }
  return grpc::Status::OK;
}

grpc::Status FakeRuntimeServer::Service::GetTpuRuntimeStatus(
    grpc::ServerContext*, const runtime::GetTpuRuntimeStatusRequest*,
    runtime::GetTpuRuntimeStatusResponse* response) {
  if (grpc::Status s = Begin(); !s.ok()) return s;
  if (!script_.status) {
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no runtime status in this script");
  }
  *response = *script_.status;
  return grpc::Status::OK;
}

std::unique_ptr<FakeRuntimeServer> FakeRuntimeServer::Start(FakeRuntimeScript script, int port) {
  std::unique_ptr<FakeRuntimeServer> server(new FakeRuntimeServer());
  server->service_ = std::make_unique<Service>(std::move(script));
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(port), grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) return nullptr;
  return server;
}

void FakeRuntimeServer::Shutdown() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

FakeRuntimeServer::~FakeRuntimeServer() { Shutdown(); }

}  // namespace xpuperf::tpu::testing

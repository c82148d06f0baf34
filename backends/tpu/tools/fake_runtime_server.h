// A fake libtpu runtime metric service for tests: a real gRPC server built from the same .proto,
// on a loopback port the OS picks, serving a scripted set of metrics.
#pragma once

#include <grpcpp/server.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpu_metric_service.grpc.pb.h"

namespace xpuperf::tpu::testing {

namespace runtime = ::tpu::monitoring::runtime;

struct FakeRuntimeScript {
  // Served by name; ListSupportedMetrics lists exactly these names.
  std::vector<runtime::TPUMetric> metrics;
  // GetTpuRuntimeStatus answers this, or UNIMPLEMENTED when absent (older runtimes).
  std::optional<runtime::GetTpuRuntimeStatusResponse> status;
  // When not OK, every RPC fails with this code (an overloaded or shutting-down runtime).
  grpc::StatusCode fail_with = grpc::StatusCode::OK;
  // Every RPC waits this long before answering (a hung runtime; longer than the client deadline).
  std::chrono::milliseconds delay{0};
};

// Thread-safe: gRPC serves from its own threads; the counters are atomic.
class FakeRuntimeServer {
 public:
  // Listens on 127.0.0.1:<port>; port 0 lets the OS pick one. nullptr when it cannot bind.
  static std::unique_ptr<FakeRuntimeServer> Start(FakeRuntimeScript script, int port = 0);
  ~FakeRuntimeServer();

  int port() const { return port_; }
  // RPCs answered so far (any outcome).
  int calls() const { return service_->calls.load(); }
  void Wait() { server_->Wait(); }
  void Shutdown();

 private:
  class Service final : public runtime::RuntimeMetricService::Service {
   public:
    explicit Service(FakeRuntimeScript script) : script_(std::move(script)) {}
    grpc::Status GetRuntimeMetric(grpc::ServerContext* context,
                                  const runtime::MetricRequest* request,
                                  runtime::MetricResponse* response) override;
    grpc::Status ListSupportedMetrics(grpc::ServerContext* context,
                                      const runtime::ListSupportedMetricsRequest* request,
                                      runtime::ListSupportedMetricsResponse* response) override;
    grpc::Status GetTpuRuntimeStatus(grpc::ServerContext* context,
                                     const runtime::GetTpuRuntimeStatusRequest* request,
                                     runtime::GetTpuRuntimeStatusResponse* response) override;
    std::atomic<int> calls{0};

   private:
    // Counts the call, waits the scripted delay, and returns the scripted failure (or OK).
    grpc::Status Begin();
    FakeRuntimeScript script_;
  };

  FakeRuntimeServer() = default;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace xpuperf::tpu::testing

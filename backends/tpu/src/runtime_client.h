// Internal to the TPU backend: a client of one libtpu runtime metric service (one port).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tpu_metric_service.grpc.pb.h"
#include "xpuperf/core/status.h"

namespace xpuperf::tpu {

namespace runtime = ::tpu::monitoring::runtime;

// Not thread-safe; one per port. Every call has the same short deadline, so a hung runtime costs
// at most `deadline` per call.
class RuntimeClient {
 public:
  // target: "localhost:8431". Plain TCP on loopback, which the runtime accepts from local clients;
  // the connection is made lazily on the first call.
  RuntimeClient(std::string target, std::chrono::milliseconds deadline);

  const std::string& target() const { return target_; }

  Result<std::vector<std::string>> ListSupportedMetrics();
  Result<runtime::TPUMetric> GetMetric(const std::string& name);
  Result<runtime::GetTpuRuntimeStatusResponse> GetRuntimeStatus();

 private:
  std::string target_;
  std::chrono::milliseconds deadline_;
  std::unique_ptr<runtime::RuntimeMetricService::Stub> stub_;
};

// A gRPC status as an Error a user can act on, naming the target and the RPC:
// UNAVAILABLE -> kUnavailable NoServerMessage(port) (nothing accepts connections on the port, or
// a gRPC server answered UNAVAILABLE), or kUnavailable "the server at ... accepts connections but
// is not the TPU runtime's gRPC service" (gRPC's handshake failed against a listening socket),
// DEADLINE_EXCEEDED -> kUnavailable "... did not answer within 1000 ms", UNIMPLEMENTED ->
// kUnsupported, anything else -> kIo with the gRPC code name and message.
Error ErrorFromGrpcStatus(const grpc::Status& status, const std::string& target,
                          std::string_view rpc, std::chrono::milliseconds deadline);

// "no libtpu process is serving metrics on 8431: start your JAX program, or set
// TPU_RUNTIME_METRICS_PORTS"; ports is "8431" or "8431,8432".
std::string NoServerMessage(std::string_view ports);
// True for the error ErrorFromGrpcStatus makes of UNAVAILABLE (nothing listening on the port).
bool IsNoServerError(const Error& error);

// Ports from TPU_RUNTIME_METRICS_PORTS ("8431,8432"); {8431} when unset or empty. kInvalidArgument
// naming the bad entry when an entry is not a port number.
Result<std::vector<int>> ParseRuntimePorts(const char* env_value);

}  // namespace xpuperf::tpu

#include "runtime_client.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/credentials.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/core/tcp_probe.h"

namespace xpuperf::tpu {
namespace {

constexpr int kDefaultPort = 8431;

std::string_view GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

// gRPC's own messages for a connection that failed below the RPC (as opposed to a status that a
// server sent): the channel could not be set up or the peer does not speak HTTP/2.
std::unique_ptr<grpc::ClientContext> MakeContext(std::chrono::milliseconds deadline) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline);
  return context;
}

}  // namespace

RuntimeClient::RuntimeClient(std::string target, std::chrono::milliseconds deadline)
    : target_(std::move(target)), deadline_(deadline) {
  // The runtime listens on loopback only; plain TCP is what it accepts from local clients, and it
  // keeps the client free of TLS setup. Fail fast instead of retrying a refused connection until
  // the deadline: a missing server should cost milliseconds, not the whole deadline.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  args.SetInt("grpc.initial_reconnect_backoff_ms", 100);
  auto channel = grpc::CreateCustomChannel(target_, grpc::InsecureChannelCredentials(), args);
  stub_ = runtime::RuntimeMetricService::NewStub(channel);
}

Result<std::vector<std::string>> RuntimeClient::ListSupportedMetrics() {
  runtime::ListSupportedMetricsRequest request;
  runtime::ListSupportedMetricsResponse response;
  auto context = MakeContext(deadline_);
  grpc::Status status = stub_->ListSupportedMetrics(context.get(), request, &response);
  if (!status.ok()) return ErrorFromGrpcStatus(status, target_, "ListSupportedMetrics", deadline_);
  std::vector<std::string> names;
  for (const auto& metric : response.supported_metric()) names.push_back(metric.metric_name());
  return names;
}

Result<runtime::TPUMetric> RuntimeClient::GetMetric(const std::string& name) {
  runtime::MetricRequest request;
  request.set_metric_name(name);
  runtime::MetricResponse response;
  auto context = MakeContext(deadline_);
  grpc::Status status = stub_->GetRuntimeMetric(context.get(), request, &response);
  if (!status.ok()) {
    return ErrorFromGrpcStatus(status, target_, "GetRuntimeMetric(" + name + ")", deadline_);
  }
  return std::move(*response.mutable_metric());
}

Result<runtime::GetTpuRuntimeStatusResponse> RuntimeClient::GetRuntimeStatus() {
  runtime::GetTpuRuntimeStatusRequest request;
  runtime::GetTpuRuntimeStatusResponse response;
  auto context = MakeContext(deadline_);
  grpc::Status status = stub_->GetTpuRuntimeStatus(context.get(), request, &response);
  if (!status.ok()) return ErrorFromGrpcStatus(status, target_, "GetTpuRuntimeStatus", deadline_);
  return response;
}

Error ErrorFromGrpcStatus(const grpc::Status& status, const std::string& target,
                          std::string_view rpc, std::chrono::milliseconds deadline) {
  const std::string& detail = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      // Nothing accepting connections on the port is by far the common case: no program with
      // libtpu is running. A server that accepts them but fails gRPC's handshake (an HTTP/1
      // server, one that closes the socket) is something else on the port, and "no libtpu process"
      // would send the user looking in the wrong place. A gRPC server answering UNAVAILABLE itself
      // is a runtime that does not serve metrics (yet): like no server.
      if (IsGrpcTransportFailure(detail) && AcceptsTcpConnections(target, deadline)) {
        return MakeError(ErrorCode::kUnavailable,
                         fmt::format("the server at {} accepts connections but is not the TPU "
                                     "runtime's gRPC service ({} failed: {})",
                                     target, rpc, detail));
      }
      return MakeError(ErrorCode::kUnavailable,
                       NoServerMessage(target.substr(target.find_last_of(':') + 1)));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("the TPU runtime at {} did not answer {} within {} ms", target,
                                   rpc, deadline.count()));
    case grpc::StatusCode::UNIMPLEMENTED:
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("the TPU runtime at {} does not implement {}", target, rpc));
    default:
      return MakeError(ErrorCode::kIo, fmt::format("{} at {} failed: {} {}", rpc, target,
                                                   GrpcCodeName(status.error_code()), detail));
  }
}

std::string NoServerMessage(std::string_view ports) {
  return fmt::format(
      "no libtpu process is serving metrics on {}: start your JAX program, or set "
      "TPU_RUNTIME_METRICS_PORTS",
      ports);
}

bool IsNoServerError(const Error& error) {
  return error.code == ErrorCode::kUnavailable && error.message.starts_with("no libtpu process");
}

Result<std::vector<int>> ParseRuntimePorts(const char* env_value) {
  std::vector<int> ports;
  std::string_view text = env_value ? env_value : "";
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view entry = TrimWhitespace(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (entry.empty()) continue;
    auto port = ParseUnsigned(entry);
    if (!port || *port == 0 || *port > 65535) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("TPU_RUNTIME_METRICS_PORTS: '{}' is not a port number (expected "
                                   "a comma-separated list such as 8431,8432)",
                                   entry));
    }
    ports.push_back(static_cast<int>(*port));
  }
  if (ports.empty()) ports.push_back(kDefaultPort);
  return ports;
}

}  // namespace xpuperf::tpu

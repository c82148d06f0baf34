// ProfileXlaServer over gRPC: a generic stub (raw bytes, no generated code) on an insecure
// channel, as jax.profiler.start_server serves (it has no TLS). The call is asynchronous on a
// completion queue polled every 50 ms, so SIGINT/SIGTERM and should_stop end it promptly
// (TryCancel), not only the deadline.
#include <fmt/format.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <ctime>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/core/tcp_probe.h"
#include "xpuperf/xla_profiler/xla_profiler.h"

namespace xpuperf::xla_profiler {
namespace {

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The reference client's session id: local time YYYY_MM_DD_HH_MM_SS.
std::string SessionId() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y_%m_%d_%H_%M_%S", &local);
  return text;
}

std::string_view CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    default:
      return "error";
  }
}

Error ErrorOf(const grpc::Status& status, const std::string& address, int64_t deadline_ms) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      // Something else on the port (an HTTP server: a wrong port number) is named as such.
      if (IsGrpcTransportFailure(status.error_message()) &&
          AcceptsTcpConnections(
              address, std::chrono::milliseconds(std::clamp<int64_t>(deadline_ms, 100, 2000)))) {
        return MakeError(ErrorCode::kUnavailable,
                         fmt::format("the server at {} accepts connections but is not an XLA "
                                     "profiler (gRPC failed: {}): is that the port given to "
                                     "jax.profiler.start_server?",
                                     address, status.error_message()));
      }
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("no XLA profiler server answers at {} ({}): is the program "
                                   "running jax.profiler.start_server on that port?",
                                   address, status.error_message()));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return MakeError(
          ErrorCode::kUnavailable,
          fmt::format("the XLA profiler at {} did not answer within {} ms", address, deadline_ms));
    case grpc::StatusCode::UNIMPLEMENTED:
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("{} does not serve {}", address, kProfileMethod));
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("the profile from {} is larger than the limit ({})", address,
                                   status.error_message()));
    default:
      return MakeError(ErrorCode::kIo,
                       fmt::format("the XLA profiler at {} failed: {}: {}", address,
                                   CodeName(status.error_code()), status.error_message()));
  }
}

}  // namespace

bool XlaProfilerSupported() { return true; }

Result<XlaProfileResult> ProfileXlaServer(const XlaProfileRequest& request) {
  XPUPERF_ASSIGN_OR_RETURN(std::string address, NormaliseProfilerAddress(request.address));
  if (request.duration_ms == 0 || request.duration_ms > 24ull * 3600 * 1000) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the profile duration must be 1 ms .. 24 h, not " +
                         std::to_string(request.duration_ms) + " ms");
  }
  if (!request.output_path.empty()) XPUPERF_RETURN_IF_ERROR(PrepareOutput(request.output_path));
  XlaProfileRequest normalised = request;
  normalised.address = address;
  const std::string bytes = EncodeProfileRequest(normalised, SessionId());

  const int64_t now_ns = WallNs();
  int64_t wait_ms = 0;
  if (request.start_timestamp_ns > static_cast<uint64_t>(now_ns)) {
    wait_ms = static_cast<int64_t>((request.start_timestamp_ns - static_cast<uint64_t>(now_ns)) /
                                   1'000'000);
  }
  const int64_t deadline_ms = request.deadline.count() > 0
                                  ? request.deadline.count()
                                  : wait_ms + static_cast<int64_t>(request.duration_ms) + 60'000;

  grpc::ChannelArguments args;
  const uint64_t max_receive = std::min<uint64_t>(request.max_response_bytes, INT_MAX);
  args.SetMaxReceiveMessageSize(static_cast<int>(max_receive));
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  // A refused connection fails at once (UNAVAILABLE) rather than waiting out the deadline: a host
  // of a capture without a profiler server should cost milliseconds.
  context.set_wait_for_ready(false);

  grpc::Slice slice(bytes);
  grpc::ByteBuffer send(&slice, 1);
  grpc::CompletionQueue queue;
  XlaProfileResult result;
  result.started_ns = WallNs();
  auto call = stub.PrepareUnaryCall(&context, std::string(kProfileMethod), send, &queue);
  if (!call) return MakeError(ErrorCode::kInternal, "gRPC could not start a call to " + address);
  call->StartCall();
  grpc::ByteBuffer reply;
  grpc::Status status;
  call->Finish(&reply, &status, reinterpret_cast<void*>(1));

  bool cancelled = false;
  for (;;) {
    void* tag = nullptr;
    bool ok = false;
    auto next = queue.AsyncNext(&tag, &ok,
                                std::chrono::system_clock::now() + std::chrono::milliseconds(50));
    if (next == grpc::CompletionQueue::GOT_EVENT) break;
    if (next == grpc::CompletionQueue::SHUTDOWN) break;
    if (!cancelled && (CancellationRequested() || (request.should_stop && request.should_stop()))) {
      cancelled = true;
      context.TryCancel();  // the Finish tag still arrives, with CANCELLED
    }
  }
  queue.Shutdown();
  void* drained_tag = nullptr;
  bool drained_ok = false;
  while (queue.Next(&drained_tag, &drained_ok)) {
  }
  result.finished_ns = WallNs();
  if (cancelled) {
    XPUPERF_RETURN_IF_ERROR(CheckCancelled());
    return MakeError(ErrorCode::kUnavailable, "the profile of " + address + " was cancelled");
  }
  if (!status.ok()) return ErrorOf(status, address, deadline_ms);

  std::string response;
  std::vector<grpc::Slice> slices;
  if (!reply.Dump(&slices).ok()) {
    return MakeError(ErrorCode::kIo, "could not read the reply of " + address);
  }
  response.reserve(reply.Length());
  for (const grpc::Slice& s : slices) {
    response.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  XPUPERF_ASSIGN_OR_RETURN(DecodedProfileResponse decoded, DecodeProfileResponse(response));
  result.empty_trace = decoded.empty_trace;
  if (!decoded.has_xspace) {
    return MakeError(ErrorCode::kParse,
                     "the XLA profiler at " + address +
                         " replied without an XSpace (a server too old for emit_xspace?)");
  }
  result.xspace_bytes = decoded.xspace.size();
  if (!request.output_path.empty()) {
    XPUPERF_RETURN_IF_ERROR(WriteOutputFile(request.output_path, decoded.xspace));
    result.written_path = request.output_path;
  } else {
    result.xspace.assign(decoded.xspace);
  }
  return result;
}

}  // namespace xpuperf::xla_profiler

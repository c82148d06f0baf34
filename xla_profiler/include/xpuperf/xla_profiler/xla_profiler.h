// A client of XLA's profiler service: what `jax.profiler.start_server(port)` (and TensorFlow's
// profiler server) serve as gRPC `tensorflow.ProfilerService/Profile`. One call captures one
// profile of one process and returns the serialized XSpace (the bytes of a `.xplane.pb`), or
// writes it to a file. The request is encoded by hand (protobuf wire format, no protoc) and sent
// through gRPC's generic stub; docs/CAPTURE.md ("JAX / XLA") describes the protocol.
//
// Built without gRPC, ProfileXlaServer returns kUnsupported "unsupported: built without gRPC"
// (XlaProfilerSupported() is false); the encoders below are always available.
//
// Thread-safety: ProfileXlaServer may be called from several threads at once (one call per
// target: the server side allows one profiling session per process at a time).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::xla_profiler {

struct XlaProfileRequest {
  // "host:port" of the profiler server (IPv6 as "[::1]:port"); a bare port means localhost.
  std::string address;
  uint64_t duration_ms = 1000;  // how long the server traces, from its start
  // Wall-clock start (ns since the Unix epoch) shared by every host of one capture: the server
  // sleeps until then before tracing. 0 = start at once.
  uint64_t start_timestamp_ns = 0;
  // How the server names this host in the XSpace (and its file); empty = the address.
  std::string host_name;
  // The whole call must finish by then (connect, wait for start, trace, transfer). 0 = wait time
  // until start_timestamp_ns + duration_ms + 60 s.
  std::chrono::milliseconds deadline{0};
  // Non-empty: the XSpace is written here (atomically, core/output_file.h) instead of being
  // returned in XlaProfileResult::xspace.
  std::string output_path;
  uint64_t max_events = 1'000'000;   // the server's cap on host trace events (the reference value)
  uint32_t host_tracer_level = 2;    // 0 off, 1 user TraceMe, 2 + high-level runtime, 3 verbose
  uint32_t device_tracer_level = 1;  // 0 off, 1 on
  uint32_t python_tracer_level = 0;  // 0 off, 1 Python function calls
  // The largest reply accepted (bytes); larger ones fail with kUnavailable naming the limit.
  uint64_t max_response_bytes = uint64_t{1} << 30;
  // Polled every ~50 ms besides the process-wide SIGINT/SIGTERM token (core/cancellation.h): true
  // ends the call with kUnavailable "cancelled". May be empty.
  std::function<bool()> should_stop;
};

struct XlaProfileResult {
  std::string xspace;        // the serialized XSpace (empty when written to output_path)
  std::string written_path;  // output_path when the XSpace was written there, else empty
  uint64_t xspace_bytes = 0;
  bool empty_trace = false;  // the server said it recorded nothing
  int64_t started_ns = 0;    // wall clock (ns since the epoch) when the call was sent
  int64_t finished_ns = 0;   // ... and when the reply arrived
};

// False when xpuperf was built without gRPC.
bool XlaProfilerSupported();

// Captures one profile. Errors: kInvalidArgument for a bad address or duration; kUnavailable
// when nothing answers at the address, on a deadline or cancellation; kIo for a server error
// (its gRPC status and message, e.g. another session already running); kParse for a reply that
// is not a ProfileResponse or holds no XSpace; kUnsupported without gRPC.
Result<XlaProfileResult> ProfileXlaServer(const XlaProfileRequest& request);

// The gRPC method called.
inline constexpr std::string_view kProfileMethod = "/tensorflow.ProfilerService/Profile";

// The wire bytes of the tensorflow.ProfileRequest sent for `request` (emit_xspace set, both
// duration fields set, ProfileOptions version 1 so start_timestamp_ns is honoured).
std::string EncodeProfileRequest(const XlaProfileRequest& request, std::string_view session_id);

// The XSpace carried by a tensorflow.ProfileResponse (field 8), and whether empty_trace (7) was
// set. kParse for malformed bytes.
struct DecodedProfileResponse {
  std::string_view xspace;  // a view into the response bytes
  bool has_xspace = false;
  bool empty_trace = false;
};
Result<DecodedProfileResponse> DecodeProfileResponse(std::string_view response);

// "host:port" checked and normalised ("8000" -> "localhost:8000"); kInvalidArgument otherwise.
Result<std::string> NormaliseProfilerAddress(std::string_view address);

}  // namespace xpuperf::xla_profiler

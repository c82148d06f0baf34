// tensorflow.ProfileRequest / ProfileResponse on the wire (field numbers from tsl's
// profiler_service.proto and profiler_options.proto; docs/CAPTURE.md lists them).
#include <cctype>
#include <charconv>

#include "xpuperf/core/protobuf_wire.h"
#include "xpuperf/xla_profiler/xla_profiler.h"

namespace xpuperf::xla_profiler {
namespace {

// ProfileRequest
constexpr uint32_t kRequestDurationMs = 1;
constexpr uint32_t kRequestMaxEvents = 2;
constexpr uint32_t kRequestTools = 3;
constexpr uint32_t kRequestOpts = 4;
constexpr uint32_t kRequestSessionId = 6;
constexpr uint32_t kRequestHostName = 7;
constexpr uint32_t kRequestEmitXspace = 9;
// ProfileOptions
constexpr uint32_t kOptsHostTracerLevel = 2;
constexpr uint32_t kOptsDeviceTracerLevel = 3;
constexpr uint32_t kOptsPythonTracerLevel = 4;
constexpr uint32_t kOptsVersion = 5;
constexpr uint32_t kOptsStartTimestampNs = 8;
constexpr uint32_t kOptsDurationMs = 9;
constexpr uint32_t kOptsSessionId = 14;
// ProfileResponse
constexpr uint32_t kResponseEmptyTrace = 7;
constexpr uint32_t kResponseXspace = 8;

}  // namespace

std::string EncodeProfileRequest(const XlaProfileRequest& request, std::string_view session_id) {
  wire::WireWriter opts;
  // Levels are written even when 0: the server reads an absent level as 0 too, but a written one
  // documents the choice in captures of the request.
  opts.Varint(kOptsHostTracerLevel, request.host_tracer_level);
  opts.Varint(kOptsDeviceTracerLevel, request.device_tracer_level);
  opts.Varint(kOptsPythonTracerLevel, request.python_tracer_level);
  // Version 0 makes the server replace the options with its defaults (and ignore the start time).
  opts.Varint(kOptsVersion, 1);
  opts.VarintIfSet(kOptsStartTimestampNs, request.start_timestamp_ns);
  opts.Varint(kOptsDurationMs, request.duration_ms);
  opts.BytesIfSet(kOptsSessionId, session_id);

  wire::WireWriter out;
  // The server traces for opts.duration_ms; the top-level field is what older servers read.
  out.Varint(kRequestDurationMs, request.duration_ms);
  out.Varint(kRequestMaxEvents, request.max_events);
  out.Bytes(kRequestTools, "xplane.pb");
  out.Bytes(kRequestOpts, opts.data());
  out.BytesIfSet(kRequestSessionId, session_id);
  out.BytesIfSet(kRequestHostName, request.host_name.empty() ? request.address : request.host_name);
  out.Bool(kRequestEmitXspace, true);
  return out.Take();
}

Result<DecodedProfileResponse> DecodeProfileResponse(std::string_view response) {
  DecodedProfileResponse decoded;
  wire::WireReader reader(response);
  wire::WireField field;
  while (reader.Next(&field)) {
    if (field.number == kResponseXspace && field.type == wire::WireType::kLengthDelimited) {
      decoded.xspace = field.bytes;
      decoded.has_xspace = true;
    } else if (field.number == kResponseEmptyTrace && field.type == wire::WireType::kVarint) {
      decoded.empty_trace = field.value != 0;
    }
  }
  if (!reader.status().ok()) {
    return MakeError(ErrorCode::kParse, "the profiler's reply is not a ProfileResponse: " +
                                            reader.status().error().message);
  }
  return decoded;
}

Result<std::string> NormaliseProfilerAddress(std::string_view address) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid profiler address '" + std::string(address) +
                         "': " + std::string(why) + " (expected HOST:PORT, e.g. localhost:9999)");
  };
  if (address.empty()) return bad("empty");
  std::string host;
  std::string_view port;
  if (address.front() == '[') {
    size_t close = address.find(']');
    if (close == std::string_view::npos || close + 1 >= address.size() ||
        address[close + 1] != ':') {
      return bad("an IPv6 address needs the form [ADDR]:PORT");
    }
    host = std::string(address.substr(0, close + 1));
    port = address.substr(close + 2);
  } else {
    size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) {
      host = "localhost";
      port = address;
    } else {
      host = std::string(address.substr(0, colon));
      port = address.substr(colon + 1);
      if (host.find(':') != std::string::npos) return bad("write an IPv6 host in brackets");
    }
  }
  if (host.empty()) return bad("no host");
  for (char c : host) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/') return bad("bad host");
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
      value > 65535) {
    return bad("the port must be 1..65535");
  }
  return host + ":" + std::to_string(value);
}

}  // namespace xpuperf::xla_profiler

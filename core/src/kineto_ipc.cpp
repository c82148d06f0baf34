#include "xpuperf/core/kineto_ipc.h"

#include <cstring>

namespace xpuperf::kineto {

namespace {

template <typename T>
T Load(std::string_view bytes, size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

template <typename T>
void Store(std::string& bytes, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.append(raw, sizeof(T));
}

constexpr int32_t kMaxRequestPids = 64;  // Kineto sends at most 11

}  // namespace

Result<IpcMessage> ParseIpcDatagram(std::string_view datagram) {
  if (datagram.size() < kIpcHeaderBytes) {
    return MakeError(ErrorCode::kParse, "IPC datagram: shorter than its 40-byte header");
  }
  const auto size = Load<uint64_t>(datagram, 0);
  if (size != datagram.size() - kIpcHeaderBytes) {
    return MakeError(ErrorCode::kParse, "IPC datagram: header says " + std::to_string(size) +
                                            " payload bytes, datagram has " +
                                            std::to_string(datagram.size() - kIpcHeaderBytes));
  }
  const std::string_view type_field = datagram.substr(8, kIpcTypeBytes);
  const size_t nul = type_field.find('\0');
  if (nul == std::string_view::npos) {
    return MakeError(ErrorCode::kParse, "IPC datagram: type is not NUL-terminated");
  }
  IpcMessage message;
  message.type = std::string(type_field.substr(0, nul));
  message.payload = std::string(datagram.substr(kIpcHeaderBytes));
  return message;
}

std::string EncodeIpcDatagram(std::string_view type, std::string_view payload) {
  std::string datagram;
  datagram.reserve(kIpcHeaderBytes + payload.size());
  Store<uint64_t>(datagram, payload.size());
  std::string type_field(kIpcTypeBytes, '\0');
  type_field.replace(0, std::min(type.size(), kIpcTypeBytes - 1),
                     type.substr(0, kIpcTypeBytes - 1));
  datagram += type_field;
  datagram.append(payload);
  return datagram;
}

Result<KinetoRequest> ParseKinetoRequest(std::string_view payload) {
  if (payload.size() < 16) return MakeError(ErrorCode::kParse, "req: shorter than 16 bytes");
  KinetoRequest request;
  request.type = Load<int32_t>(payload, 0);
  const auto count = Load<int32_t>(payload, 4);
  request.job_id = Load<int64_t>(payload, 8);
  if (count < 1 || count > kMaxRequestPids) {
    return MakeError(ErrorCode::kParse, "req: pid count " + std::to_string(count) + " outside 1.." +
                                            std::to_string(kMaxRequestPids));
  }
  if (payload.size() < 16 + 4 * static_cast<size_t>(count)) {
    return MakeError(ErrorCode::kParse, "req: shorter than its " + std::to_string(count) + " pids");
  }
  for (int32_t i = 0; i < count; ++i) {
    const auto pid = Load<int32_t>(payload, 16 + 4 * static_cast<size_t>(i));
    if (pid <= 0) return MakeError(ErrorCode::kParse, "req: pid <= 0");
    request.pids.push_back(pid);
  }
  return request;
}

std::string EncodeKinetoRequest(const KinetoRequest& request) {
  std::string payload;
  Store<int32_t>(payload, request.type);
  Store<int32_t>(payload, static_cast<int32_t>(request.pids.size()));
  Store<int64_t>(payload, request.job_id);
  for (int32_t pid : request.pids) Store<int32_t>(payload, pid);
  return payload;
}

Result<KinetoContext> ParseKinetoContext(std::string_view payload) {
  if (payload.size() < 16) return MakeError(ErrorCode::kParse, "ctxt: shorter than 16 bytes");
  KinetoContext context;
  context.gpu = Load<int32_t>(payload, 0);
  context.pid = Load<int32_t>(payload, 4);
  context.job_id = Load<int64_t>(payload, 8);
  if (context.pid <= 0) return MakeError(ErrorCode::kParse, "ctxt: pid <= 0");
  return context;
}

std::string KinetoOutputPath(const std::string& log_file, int32_t pid) {
  const std::string suffix = "_" + std::to_string(pid);
  if (size_t at = log_file.find(".pt.trace.json"); at != std::string::npos) {
    return log_file.substr(0, at) + suffix + log_file.substr(at);
  }
  if (size_t at = log_file.find(".json"); at != std::string::npos) {
    return log_file.substr(0, at) + suffix + log_file.substr(at);
  }
  return log_file;
}

}  // namespace xpuperf::kineto

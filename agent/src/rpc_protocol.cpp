#include "xpuperf/agent/rpc_protocol.h"

#include <cstring>

namespace xpuperf::agent {

Result<int32_t> ParseFrameLength(std::string_view header, int32_t max_bytes) {
  if (header.size() != kFrameHeaderBytes) {
    return MakeError(ErrorCode::kParse, "RPC frame: truncated length header");
  }
  int32_t length = 0;
  std::memcpy(&length, header.data(), sizeof(length));
  if (length <= 0) return MakeError(ErrorCode::kParse, "RPC frame: length <= 0");
  if (length > max_bytes) {
    return MakeError(ErrorCode::kParse, "RPC frame: " + std::to_string(length) +
                                            " bytes is over the limit of " +
                                            std::to_string(max_bytes));
  }
  return length;
}

std::string FrameMessage(std::string_view json) {
  const auto length = static_cast<int32_t>(json.size());
  std::string frame(kFrameHeaderBytes, '\0');
  std::memcpy(frame.data(), &length, sizeof(length));
  frame.append(json);
  return frame;
}

Result<RpcRequest> ParseRpcRequest(std::string_view json) {
  nlohmann::json body = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return MakeError(ErrorCode::kParse, "RPC request: not valid JSON");
  if (!body.is_object()) return MakeError(ErrorCode::kParse, "RPC request: not a JSON object");
  auto fn = body.find("fn");
  if (fn == body.end() || !fn->is_string()) {
    return MakeError(ErrorCode::kParse, "RPC request: no string \"fn\"");
  }
  RpcRequest request;
  request.fn = fn->get<std::string>();
  request.body = std::move(body);
  return request;
}

}  // namespace xpuperf::agent

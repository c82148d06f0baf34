// dynolog's TCP RPC, as the `dyno` CLI and dynolog's server speak it: one request per connection,
// each message an int32 byte length (host order, little-endian on every supported platform)
// followed by that many bytes of JSON; the reply uses the same framing and the server closes
// after it. A request is an object with a string "fn" naming the call.
//
// The parsers here are free functions over bytes so they can be tested and fuzzed without a
// socket. Thread-safety: all functions are reentrant.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::agent {

inline constexpr int kDefaultRpcPort = 1778;  // dynolog's --port default
inline constexpr size_t kFrameHeaderBytes = 4;
// Requests larger than this are refused (dynolog sets no bound; ours are a few hundred bytes).
inline constexpr int32_t kMaxRequestBytes = 1 << 20;
// Replies may carry a file chunk (kMaxReadChunkBytes, base64) and its JSON around it.
inline constexpr int32_t kMaxReplyBytes = 16 << 20;

struct RpcRequest {  // NOLINT(bugprone-exception-escape): thrown in nlohmann::json's noexcept dtor
  std::string fn;
  nlohmann::json body;  // the whole request object (fn included)
};

// The length in a frame header; kParse when it is <= 0 or above `max_bytes` (the caller then
// closes the connection without a reply, as dynolog does).
Result<int32_t> ParseFrameLength(std::string_view header, int32_t max_bytes);
// Length header + bytes.
std::string FrameMessage(std::string_view json);
// A request's JSON: kParse for bad JSON, a non-object or a missing/non-string "fn".
Result<RpcRequest> ParseRpcRequest(std::string_view json);

}  // namespace xpuperf::agent

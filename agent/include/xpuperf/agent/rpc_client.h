// The client side of the agent's RPC (dynolog framing), plain or over TLS, used by
// `xpuperf capture`. Works against dynolog itself for dynolog's calls.
//
// Thread-safety: CallAgent is reentrant (one connection per call).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "xpuperf/agent/rpc_protocol.h"
#include "xpuperf/core/status.h"

namespace xpuperf::agent {

struct AgentEndpoint {
  std::string host;
  int port = kDefaultRpcPort;
  std::string ToString() const;  // "host:port", "[v6]:port"
};

// "HOST", "HOST:PORT", "[V6]", "[V6]:PORT"; kInvalidArgument naming the text otherwise.
Result<AgentEndpoint> ParseAgentEndpoint(std::string_view text);

struct ClientSecurity {
  bool tls = false;
  std::string ca_file;    // verifies the agent's certificate (empty: system CAs)
  std::string cert_file;  // client certificate, when the agent asks for one
  std::string key_file;
  std::string authorization;  // sent as "authorization" ("Basic <base64>"), empty = none
};

// "Basic <base64(user:password)>" from the text of a credentials file ("user:password", one line).
Result<std::string> AuthorizationFromCredentials(std::string_view text);

// One request and its reply. kUnavailable when the agent cannot be reached, kIo when it closes
// without replying (dynolog's answer to an unknown or malformed request), kParse for a reply that
// is not a JSON object.
Result<nlohmann::json> CallAgent(const AgentEndpoint& endpoint, nlohmann::json request,
                                 const ClientSecurity& security, double timeout_seconds);

}  // namespace xpuperf::agent

// The agent's answers to RPC requests: dynolog's calls (getStatus, getVersion,
// setKinetOnDemandRequest, dcgmProfPause/Resume) with dynolog's replies, and xpuperf's own calls
// for captures that bring files back:
//   xpuperfListProcesses {}                              -> {"processes": [...]}
//   xpuperfCaptureStart {capture_id, job_id?, pids?, duration_ms | iterations, start_time_ms?,
//                        iteration_roundup?, process_limit?}
//                                                        -> dynolog's trigger reply + log_file
//   xpuperfCaptureFiles {capture_id}                     -> {"files": [{name, size_bytes,
//   too_large}]} xpuperfCaptureRead {capture_id, name, offset, length} -> {"data": base64, offset,
//   size_bytes, eof}
// Malformed JSON, a non-object, a missing or unknown "fn" get no reply (the connection is closed),
// as in dynolog. Bad arguments of a known call get {"status": "failed: <reason>"}.
//
// With authentication on, every request must carry "authorization": "Basic <base64 user:pass>"
// (a user of the web config's basic_auth_users); others get {"status": "failed: unauthorized"}.
//
// Thread-safety: Handle may be called from several threads at once.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "xpuperf/agent/capture_store.h"
#include "xpuperf/agent/process_registry.h"

namespace xpuperf::agent {

inline constexpr int kDefaultProcessLimit = 1000;  // dynolog's server default

struct HandlerContext {
  ProcessRegistry* registry = nullptr;
  const CaptureStore* store = nullptr;
  std::string hostname;  // for trace ids
  // Checks an "authorization" value; empty = no authentication.
  std::function<bool(std::string_view)> authorize;
};

// The reply JSON to one request's JSON; nullopt = close without a reply.
std::optional<std::string> HandleRpcRequest(const HandlerContext& context, std::string_view json);

// Standard base64 (with padding), for file chunks.
std::string EncodeBase64(std::string_view bytes);

}  // namespace xpuperf::agent

#include "xpuperf/telemetry/session_factory.h"

#include <filesystem>

#include "xpuperf/builtin_backends.h"

namespace xpuperf::telemetry {

Result<std::unique_ptr<Session>> OpenSession(const CommonOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(options.root, ec)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--root '" + options.root + "' is not a directory");
  }
  for (int pid : options.pids) {
    if (pid <= 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--pid must be a positive process id (got " + std::to_string(pid) + ")");
    }
  }
  SessionOptions session;
  session.backend.root = options.root;
  session.backend.pids = options.pids;
  session.backends = options.backends;
  // The CLI runs in its own process: in-process SDK data belongs to the workload's process.
  session.recorder = nullptr;
  return Session::Open(BuiltinBackendRegistry(), std::move(session));
}

}  // namespace xpuperf::telemetry

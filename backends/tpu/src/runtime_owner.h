// Internal to the TPU backend: which process serves a runtime metric port.
#pragma once

#include <optional>
#include <string_view>

namespace xpuperf::tpu {

// The pid of the process listening on TCP `port` (root/proc/net/tcp and tcp6, LISTEN state),
// found by the socket inode among root/proc/*/fd links. nullopt when no listener is listed or its
// owner is not visible (another user's process without privileges, another pid namespace).
std::optional<int> ListeningPid(std::string_view root, int port);

}  // namespace xpuperf::tpu

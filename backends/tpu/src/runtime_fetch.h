// Internal to the TPU backend: what every runtime port answered during one Collect.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime_client.h"

namespace xpuperf::tpu {

// Lists the supported metrics of every port once, then fetches each runtime metric at most once
// per port. A port that refuses or times out is not asked again in the same Collect, so a hung
// runtime costs one deadline per Collect, not one per metric. Not thread-safe.
class RuntimeFetch {
 public:
  struct Answer {
    size_t port;  // index of the port (runtime) in the client list
    const RuntimeClient* client;
    // The metric, or why this port has none: kUnavailable (not reachable), kUnsupported (not
    // among the metrics the runtime lists), or the RPC's error.
    const Result<runtime::TPUMetric>* metric;
  };

  explicit RuntimeFetch(std::vector<RuntimeClient>& clients);

  // One answer per port, in port order.
  std::vector<Answer> Get(std::string_view runtime_name);
  bool Serves(std::string_view runtime_name) const;
  bool AnyReachable() const;
  // Why no port could be read: one line (NoServerMessage over all refused ports, or the first
  // other error). Empty when a port is reachable.
  std::string UnreachableReason() const;
  // Runtime status per port, in port order: nullopt for a port that is down or does not implement
  // it. Asked once per port per RuntimeFetch.
  const std::vector<std::optional<runtime::GetTpuRuntimeStatusResponse>>& RuntimeStatuses();
  size_t port_count() const { return ports_.size(); }
  const RuntimeClient& client(size_t port) const { return *ports_[port].client; }

 private:
  struct Port {
    RuntimeClient* client;
    std::optional<Error> down;  // set once the port refused or timed out
    std::set<std::string, std::less<>> supported;
    std::map<std::string, Result<runtime::TPUMetric>, std::less<>> metrics;
  };
  std::vector<Port> ports_;
  std::optional<std::vector<std::optional<runtime::GetTpuRuntimeStatusResponse>>> statuses_;
};

}  // namespace xpuperf::tpu

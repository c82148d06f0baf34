// Internal: the PJRT plugin and client a benchmark point runs on, opened once per plugin per
// process (creating a client loads and initialises the plugin: seconds, not microseconds), and how
// its devices appear in result records.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "xpuperf/bench/queue.h"
#include "xpuperf/core/device.h"
#include "xpuperf/pjrt/client.h"
#include "xpuperf/pjrt/discovery.h"

namespace xpuperf::pjrt_bench {

struct PjrtTarget {
  pjrt::PluginLocation location;
  std::shared_ptr<pjrt::Plugin> plugin;
  std::unique_ptr<pjrt::Client> client;

  // The record's device: backend "pjrt", id "pjrt-<platform><position>", model = device kind.
  Device DeviceRecord(int device) const;
  // Parameters every PJRT record carries: plugin path and kind, platform and its version, the
  // plugin's PJRT API version, the device's kind and id.
  nlohmann::json Describe(int device) const;
};

// The CPU plugin is created with this many devices (collectives need several):
// $XPUPERF_PJRT_CPU_DEVICES, default 4.
int CpuPluginDevices();

// `choice`: a plugin path or kind, or "" for the first plugin found (pjrt/discovery.h). The
// target lives until the process ends. kUnsupported when no plugin is found; the plugin's own
// error when it cannot create a client (libtpu without a TPU: probe it with `xpuperf devices
// --backend pjrt` first, which runs in a child process with a deadline).
Result<PjrtTarget*> OpenTarget(const std::string& choice);

// A clock around the blocking Execute (which returns once every device's completion event has
// fired): the wall time a framework's block_until_ready measures.
class PjrtHostQueue final : public bench::ExecutionQueue {
 public:
  std::string timing_source() const override {
    return "host CLOCK_MONOTONIC around PJRT_LoadedExecutable_Execute until every device's "
           "completion event";
  }
  double TimeSeconds(const std::function<void()>& enqueue) override;
};

}  // namespace xpuperf::pjrt_bench

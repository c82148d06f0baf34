// Internal: the PJRT plugin and client a benchmark point runs on, opened once per plugin per
// process (creating a client loads and initialises the plugin: seconds, not microseconds), and how
// its devices appear in result records.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "device_timing.h"
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

// The CPU plugin's client for collectives is created with this many devices:
// $XPUPERF_PJRT_CPU_DEVICES, default 4.
int CpuPluginDevices();

// How many devices a benchmark runs on. On a real accelerator the hardware decides and every
// benchmark shares one client. XLA's CPU plugin makes as many devices as asked, and sizes its
// Eigen thread pool to max(cores, devices): a 4-device client on 2 cores runs a single-device
// GEMM on 4 threads that time-share 2 cores (and spin while they wait), about half as fast as on
// 2 (docs/PJRT.md, "CPU plugin"). So a single-device benchmark gets a 1-device CPU client, the
// same as JAX's default, and collectives get CpuPluginDevices().
enum class DeviceUse { kOne, kAll };

// The number of devices asked of XLA's CPU plugin for `use`.
int CpuDeviceCount(DeviceUse use);

// `choice`: a plugin path or kind, or "" for the first plugin found (pjrt/discovery.h). The
// target lives until the process ends; one per plugin (and, for the CPU plugin, per device
// count). kUnsupported when no plugin is found; the plugin's own error when it cannot create a
// client (libtpu without a TPU: probe it with `xpuperf devices --backend pjrt` first, which runs
// in a child process with a deadline).
Result<PjrtTarget*> OpenTarget(const std::string& choice, DeviceUse use = DeviceUse::kOne);

// A clock around the blocking Execute (which returns once every device's completion event has
// fired): the wall time a framework's block_until_ready measures.
class PjrtHostQueue final : public bench::ExecutionQueue {
 public:
  std::string timing_source() const override {
    return "host CLOCK_MONOTONIC around PJRT_LoadedExecutable_Execute until every device's "
           "completion event";
  }
  double TimeSeconds(const std::function<void()>& enqueue) override;

  // Filled by LoopRunner::Sample: the plugin profiler's device time of the kept samples, or why
  // there is none.
  DeviceTiming device_timing;
};

}  // namespace xpuperf::pjrt_bench

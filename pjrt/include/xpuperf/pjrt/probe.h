// Probing a PJRT plugin in a child process with a deadline: loading libtpu on a machine without a
// TPU can wait for minutes on the cloud metadata server, and a plugin that crashes must not take
// xpuperf with it. The child is this executable run as `EXECUTABLE __pjrt-probe PATH`; it loads
// the plugin, creates a client and prints a JSON report on stdout (RunProbeChild).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "xpuperf/pjrt/discovery.h"
#include "xpuperf/pjrt/plugin.h"

namespace xpuperf::pjrt {

inline constexpr const char* kProbeCommand = "__pjrt-probe";

struct ProbeDevice {
  int id = 0;
  std::string kind;
  std::string description;
  // PJRT_Device_MemoryStats in the probe's fresh client: the device's memory (bytes_limit) and
  // what that client holds; memory_note says why not when the plugin does not report them.
  std::optional<int64_t> bytes_limit;
  std::optional<int64_t> bytes_in_use;
  std::string memory_note;
};

struct ProbeResult {
  PluginLocation location;
  bool ok = false;
  // One line when !ok: "unsupported: no TPU (PJRT_Client_Create: NOT_FOUND: ...)", "the probe
  // did not answer within 20 s ...", the loader's refusal.
  std::string error;
  ApiVersion api;                       // 0.0 when the plugin could not be loaded
  std::vector<std::string> attributes;  // "name=value"
  std::string platform;
  std::string platform_version;
  std::vector<ProbeDevice> devices;

  nlohmann::json ToJson() const;
};

// Runs the probe child. A tpu plugin's child gets TPU_SKIP_MDS_QUERY=1 unless the variable is set.
// Never fails: every problem is in the result's error.
ProbeResult ProbePlugin(const PluginLocation& location, const std::string& executable,
                        double timeout_seconds);

// The child's side: writes the report as one line, "xpuperf-pjrt-probe: " and JSON; returns 0, or 1
// when the plugin could not be loaded or create a client (the report then holds the error).
int RunProbeChild(const std::string& path, std::ostream& out);

// $XPUPERF_PJRT_PROBE_TIMEOUT seconds (1..600), default 30.
double ProbeTimeoutSeconds();

}  // namespace xpuperf::pjrt

// Compile-only PJRT: a plugin's description of a named topology ("v5e:2x2", "v4:2x2x1") and
// StableHLO programs compiled for it without its devices, e.g. libtpu on a host with no TPU. What
// the compiler reports back (memory use, cost analysis) is all there is: nothing runs.
// Thread-safety: as the PJRT C API; a Topology object itself is not synchronised.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/pjrt/plugin.h"

struct PJRT_TopologyDescription;

namespace xpuperf::pjrt {

// PJRT_Executable_GetCompiledMemoryStats (XLA's CompiledMemoryStats), device memory, bytes.
struct CompiledMemory {
  int64_t generated_code_bytes = 0;
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t alias_bytes = 0;  // arguments reused for outputs
  int64_t temp_bytes = 0;
};

struct CompiledProgram {
  int num_outputs = 0;
  bool has_memory = false;  // false when the plugin has no memory statistics
  CompiledMemory memory;
  std::vector<NamedValue> cost_analysis;  // "flops", "bytes accessed", ...; may be empty
};

class Topology {
 public:
  // PJRT_TopologyDescription_Create. Errors carry the plugin's message (an unknown name, no
  // compile-only support: kUnsupported when the plugin has no such call).
  static Result<std::unique_ptr<Topology>> Create(std::shared_ptr<const Plugin> plugin,
                                                  const std::string& name,
                                                  const std::vector<NamedValue>& options = {});
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  const std::string& name() const { return name_; }
  const std::string& platform_name() const { return platform_name_; }
  // Global ids of the topology's devices, in the plugin's order.
  const std::vector<int>& device_ids() const { return device_ids_; }
  // The device kind the plugin names ("TPU v5 lite"); empty when it has none.
  const std::string& device_kind() const { return device_kind_; }

  // PJRT_Compile of StableHLO (MLIR text or bytecode) for `num_replicas` replicas on the first
  // devices of the topology.
  Result<CompiledProgram> Compile(std::string_view mlir, int num_replicas = 1) const;

 private:
  Topology() = default;
  std::shared_ptr<const Plugin> plugin_;
  PJRT_TopologyDescription* topology_ = nullptr;
  std::string name_;
  std::string platform_name_;
  std::vector<int> device_ids_;
  std::string device_kind_;
};

}  // namespace xpuperf::pjrt

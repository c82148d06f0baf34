#include "xpuperf/cpu/cpu_backend.h"

namespace xpuperf::cpu {

Result<std::unique_ptr<Backend>> CreateCpuBackend(const BackendOptions& options) {
  return MakeError(ErrorCode::kUnsupported, "cpu backend not built yet");
}

void RegisterCpuBackend(BackendRegistry& registry) {
  registry.Register("cpu", "Host CPUs and memory (procfs, sysfs, powercap, hwmon, perf, hwloc)",
                    CreateCpuBackend);
}

}  // namespace xpuperf::cpu

#include "xpuperf/builtin_backends.h"

#include "xpuperf/amd/amd_backend.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/intel/intel_backend.h"
#include "xpuperf/nvidia/nvidia_backend.h"
#include "xpuperf/tpu/tpu_backend.h"

namespace xpuperf {

void RegisterBuiltinBackends(BackendRegistry& registry) {
  cpu::RegisterCpuBackend(registry);
  tpu::RegisterTpuBackend(registry);
  nvidia::RegisterNvidiaBackend(registry);
  amd::RegisterAmdBackend(registry);
  intel::RegisterIntelBackend(registry);
}

const BackendRegistry& BuiltinBackendRegistry() {
  static const BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    RegisterBuiltinBackends(*r);
    return r;
  }();
  return *registry;
}

}  // namespace xpuperf

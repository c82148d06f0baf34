#include "xpuperf/builtin_backends.h"

#include "xpuperf/amd/amd_backend.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/intel/intel_backend.h"
#include "xpuperf/nvidia/nvidia_backend.h"
#if XPUPERF_WITH_TPU
#include "xpuperf/tpu/tpu_backend.h"
#endif

namespace xpuperf {

void RegisterBuiltinBackends(BackendRegistry& registry) {
  cpu::RegisterCpuBackend(registry);
#if XPUPERF_WITH_TPU
  tpu::RegisterTpuBackend(registry);
#else
  // Listed with the reason, so `devices` says why there are no TPUs.
  registry.Register("tpu", "Google TPU chips (built without gRPC: XPUPERF_WITH_TPU=OFF)",
                    [](const BackendOptions&) -> Result<std::unique_ptr<Backend> > {
                      return MakeError(ErrorCode::kUnsupported,
                                       "unsupported: built without the TPU backend (gRPC)");
                    });
#endif
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

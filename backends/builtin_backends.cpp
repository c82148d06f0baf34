#include "xpuperf/builtin_backends.h"

#include "xpuperf/amd/amd_backend.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/intel/intel_backend.h"
#include "xpuperf/nvidia/nvidia_backend.h"
#if XPUPERF_WITH_TPU
#include "xpuperf/tpu/tpu_backend.h"
#include "xpuperf/tpu/tpu_sdk.h"
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

Result<nlohmann::json> ReadTpuSdkJson(const std::string& root) {
#if XPUPERF_WITH_TPU
  std::optional<tpu::TpuSdkOptions> options = tpu::SdkOptionsFromEnvironment();
  if (!options)
    return MakeError(ErrorCode::kUnsupported, "libtpu's SDK is off (XPUPERF_TPU_SDK=off)");
  XPUPERF_ASSIGN_OR_RETURN(tpu::TpuSdkListing listing, tpu::ReadTpuSdk(*options, root));
  nlohmann::json doc = {{"python", listing.python}, {"libtpu_version", listing.libtpu_version}};
  nlohmann::json metrics = nlohmann::json::array();
  for (const tpu::TpuSdkMetric& m : listing.metrics) {
    nlohmann::json entry = {{"name", m.name}, {"state", m.state}, {"note", m.note}};
    entry["catalog"] = m.catalog.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.catalog);
    if (!m.reason.empty()) entry["reason"] = m.reason;
    if (!m.description.empty()) entry["description"] = m.description;
    entry["data"] = m.data;
    metrics.push_back(std::move(entry));
  }
  doc["metrics"] = std::move(metrics);
  return doc;
#else
  (void)root;
  return MakeError(ErrorCode::kUnsupported, "unsupported: built without the TPU backend (gRPC)");
#endif
}

}  // namespace xpuperf

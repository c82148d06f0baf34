#include "nvml_library.h"

#include <fmt/format.h>

#include <cstdlib>

namespace xpuperf::nvidia {
namespace {

template <typename Fn>
bool Resolve(const DynamicLibrary& handle, const char* symbol, Fn& out) {
  out = reinterpret_cast<Fn>(handle.FindSymbol(symbol));
  return out != nullptr;
}

// The first symbol of `symbols` the library has, with its name; {nullptr, ""} when none.
template <typename Fn>
std::string_view ResolveFirst(const DynamicLibrary& handle,
                              std::initializer_list<const char*> symbols, Fn& out) {
  for (const char* symbol : symbols) {
    if (Resolve(handle, symbol, out)) return symbol;
  }
  out = nullptr;
  return {};
}

void ResolveOptional(const DynamicLibrary& handle, NvmlApi& api) {
  Resolve(handle, "nvmlSystemGetDriverVersion", api.system_get_driver_version);
  ResolveFirst(handle, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"},
               api.system_get_cuda_driver_version);
  Resolve(handle, "nvmlSystemGetProcessName", api.system_get_process_name);
  Resolve(handle, "nvmlDeviceGetName", api.device_get_name);
  Resolve(handle, "nvmlDeviceGetUUID", api.device_get_uuid);
  ResolveFirst(handle,
               {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"},
               api.device_get_pci_info);
  Resolve(handle, "nvmlDeviceGetCudaComputeCapability", api.device_get_cuda_compute_capability);
  Resolve(handle, "nvmlDeviceGetArchitecture", api.device_get_architecture);
  Resolve(handle, "nvmlDeviceGetCpuAffinity", api.device_get_cpu_affinity);
  Resolve(handle, "nvmlDeviceGetMemoryInfo", api.device_get_memory_info);
  Resolve(handle, "nvmlDeviceGetMemoryInfo_v2", api.device_get_memory_info_v2);
  Resolve(handle, "nvmlDeviceGetUtilizationRates", api.device_get_utilization_rates);
  Resolve(handle, "nvmlDeviceGetPowerUsage", api.device_get_power_usage);
  Resolve(handle, "nvmlDeviceGetTotalEnergyConsumption", api.device_get_total_energy_consumption);
  Resolve(handle, "nvmlDeviceGetTemperatureV", api.device_get_temperature_v);
  Resolve(handle, "nvmlDeviceGetTemperature", api.device_get_temperature);
  Resolve(handle, "nvmlDeviceGetTemperatureThreshold", api.device_get_temperature_threshold);
  Resolve(handle, "nvmlDeviceGetClockInfo", api.device_get_clock_info);
  Resolve(handle, "nvmlDeviceGetMaxClockInfo", api.device_get_max_clock_info);
  Resolve(handle, "nvmlDeviceGetPersistenceMode", api.device_get_persistence_mode);
  Resolve(handle, "nvmlDeviceGetEccMode", api.device_get_ecc_mode);
  Resolve(handle, "nvmlDeviceGetPowerManagementLimit", api.device_get_power_management_limit);
  Resolve(handle, "nvmlDeviceGetPowerManagementDefaultLimit",
          api.device_get_power_management_default_limit);
  Resolve(handle, "nvmlDeviceGetEnforcedPowerLimit", api.device_get_enforced_power_limit);
  Resolve(handle, "nvmlDeviceGetPowerManagementLimitConstraints",
          api.device_get_power_management_limit_constraints);
  Resolve(handle, "nvmlDeviceGetPerformanceState", api.device_get_performance_state);
  Resolve(handle, "nvmlDeviceGetCurrPcieLinkGeneration", api.device_get_curr_pcie_link_generation);
  Resolve(handle, "nvmlDeviceGetMaxPcieLinkGeneration", api.device_get_max_pcie_link_generation);
  Resolve(handle, "nvmlDeviceGetCurrPcieLinkWidth", api.device_get_curr_pcie_link_width);
  Resolve(handle, "nvmlDeviceGetMaxPcieLinkWidth", api.device_get_max_pcie_link_width);
  api.current_clocks_event_reasons_symbol = ResolveFirst(
      handle,
      {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
      api.device_get_current_clocks_event_reasons);
  ResolveFirst(
      handle,
      {"nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons"},
      api.device_get_supported_clocks_event_reasons);
  Resolve(handle, "nvmlDeviceGetPcieThroughput", api.device_get_pcie_throughput);
  Resolve(handle, "nvmlDeviceGetFieldValues", api.device_get_field_values);
  Resolve(handle, "nvmlDeviceGetProcessUtilization", api.device_get_process_utilization);

  // Process lists: _v3 and _v2 write 24-byte entries, the unversioned call 16-byte ones. Early R535
  // drivers (with nvmlDeviceGetConfComputeMemSizeInfo but without
  // nvmlDeviceGetRunningProcessDetailList) wrote 32-byte entries from _v3 (nvitop's rule).
  api.compute_running_processes_symbol = ResolveFirst(
      handle,
      {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
       "nvmlDeviceGetComputeRunningProcesses"},
      api.device_get_compute_running_processes);
  if (api.compute_running_processes_symbol == "nvmlDeviceGetComputeRunningProcesses") {
    api.process_entry_bytes = sizeof(nvml::ProcessInfoV1);
  } else {
    api.process_entry_bytes = sizeof(nvml::ProcessInfoV2);
    if (api.compute_running_processes_symbol == "nvmlDeviceGetComputeRunningProcesses_v3" &&
        handle.FindSymbol("nvmlDeviceGetConfComputeMemSizeInfo") != nullptr &&
        handle.FindSymbol("nvmlDeviceGetRunningProcessDetailList") == nullptr) {
      api.process_entry_bytes = nvml::kLargestProcessEntry;
    }
  }

  const struct {
    const char* name;
    bool found;
  } gpm[] = {
      // nvmlGpmMetricsGet first: it computes every value, so it names what an old driver lacks.
      {"nvmlGpmMetricsGet", Resolve(handle, "nvmlGpmMetricsGet", api.gpm_metrics_get)},
      {"nvmlGpmQueryDeviceSupport",
       Resolve(handle, "nvmlGpmQueryDeviceSupport", api.gpm_query_device_support)},
      {"nvmlGpmSampleAlloc", Resolve(handle, "nvmlGpmSampleAlloc", api.gpm_sample_alloc)},
      {"nvmlGpmSampleFree", Resolve(handle, "nvmlGpmSampleFree", api.gpm_sample_free)},
      {"nvmlGpmSampleGet", Resolve(handle, "nvmlGpmSampleGet", api.gpm_sample_get)},
  };
  for (const auto& symbol : gpm) {
    if (!symbol.found && api.missing_gpm_symbol.empty()) api.missing_gpm_symbol = symbol.name;
  }
  const struct {
    const char* name;
    bool found;
  } events[] = {
      {"nvmlEventSetCreate", Resolve(handle, "nvmlEventSetCreate", api.event_set_create)},
      {"nvmlEventSetFree", Resolve(handle, "nvmlEventSetFree", api.event_set_free)},
      {"nvmlDeviceRegisterEvents",
       Resolve(handle, "nvmlDeviceRegisterEvents", api.device_register_events)},
      {"nvmlDeviceGetSupportedEventTypes",
       Resolve(handle, "nvmlDeviceGetSupportedEventTypes", api.device_get_supported_event_types)},
      {"nvmlEventSetWait_v2", Resolve(handle, "nvmlEventSetWait_v2", api.event_set_wait)},
  };
  for (const auto& symbol : events) {
    if (!symbol.found && api.missing_event_symbol.empty()) api.missing_event_symbol = symbol.name;
  }
  const struct {
    const char* name;
    bool found;
  } mig[] = {
      {"nvmlDeviceGetMigMode", Resolve(handle, "nvmlDeviceGetMigMode", api.device_get_mig_mode)},
      {"nvmlDeviceGetMaxMigDeviceCount",
       Resolve(handle, "nvmlDeviceGetMaxMigDeviceCount", api.device_get_max_mig_device_count)},
      {"nvmlDeviceGetMigDeviceHandleByIndex", Resolve(handle, "nvmlDeviceGetMigDeviceHandleByIndex",
                                                      api.device_get_mig_device_handle_by_index)},
      {"nvmlDeviceGetGpuInstanceId",
       Resolve(handle, "nvmlDeviceGetGpuInstanceId", api.device_get_gpu_instance_id)},
      {"nvmlDeviceGetComputeInstanceId",
       Resolve(handle, "nvmlDeviceGetComputeInstanceId", api.device_get_compute_instance_id)},
  };
  for (const auto& symbol : mig) {
    if (!symbol.found && api.missing_mig_symbol.empty()) api.missing_mig_symbol = symbol.name;
  }
}

}  // namespace

std::string NvmlLibraryPath(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  const char* env = std::getenv(std::string(kNvmlLibraryEnv).c_str());
  if (env != nullptr && *env != '\0') return env;
  return std::string(kNvmlLibraryName);
}

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Open(const std::string& path) {
  // "<path> not found (<dlerror>)" with kUnavailable; NVML is unloaded after nvmlShutdown. A path
  // given by the user is read before dlopen (DynamicLibraryOptions::expected_symbols): a truncated
  // file or another library must not fault or run constructors.
  XPUPERF_ASSIGN_OR_RETURN(
      DynamicLibrary opened,
      DynamicLibrary::Open({path}, DynamicLibraryOptions{
                                       .bind_now = true,
                                       .unload = true,
                                       .missing_code = ErrorCode::kUnavailable,
                                       .expected_symbols = {"nvmlInit_v2", "nvmlInit"},
                                       .kind = "NVML library",
                                   }));
  std::unique_ptr<NvmlLibrary> library(new NvmlLibrary(std::move(opened)));
  const DynamicLibrary& handle = library->library_;
  NvmlApi& api = library->api_;
  nvml::InitFn init = nullptr;
  const std::string_view init_symbol = ResolveFirst(handle, {"nvmlInit_v2", "nvmlInit"}, init);
  for (auto [found, symbol] :
       {std::pair{init != nullptr, "nvmlInit_v2"},
        std::pair{Resolve(handle, "nvmlShutdown", api.shutdown), "nvmlShutdown"},
        std::pair{Resolve(handle, "nvmlErrorString", api.error_string), "nvmlErrorString"},
        std::pair{!ResolveFirst(handle, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"},
                                api.device_get_count)
                       .empty(),
                  "nvmlDeviceGetCount_v2"},
        std::pair{
            !ResolveFirst(handle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"},
                          api.device_get_handle_by_index)
                 .empty(),
            "nvmlDeviceGetHandleByIndex_v2"}}) {
    if (!found) {
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("{} is not a usable NVML library: it has no {}", path, symbol));
    }
  }
  const nvml::Return init_status = init();
  if (init_status != nvml::kSuccess) {
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("{} failed: {}", init_symbol, library->Describe(init_status)));
  }
  library->initialized_ = true;
  ResolveOptional(handle, api);
  return library;
}

NvmlLibrary::~NvmlLibrary() {
  // Before library_ is destroyed (and unloaded).
  if (initialized_) api_.shutdown();
}

std::string NvmlLibrary::Describe(nvml::Return code) const {
  const char* text = api_.error_string != nullptr ? api_.error_string(code) : nullptr;
  if (text == nullptr || *text == '\0') return nvml::ReturnName(code);
  return fmt::format("{} ({})", text, nvml::ReturnName(code));
}

}  // namespace xpuperf::nvidia

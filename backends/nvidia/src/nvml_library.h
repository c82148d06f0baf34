// Internal to the NVIDIA backend: libnvidia-ml.so.1 opened with xpuperf::DynamicLibrary (bound
// now), every symbol looked up, nvmlInit_v2 on open and nvmlShutdown + dlclose on destruction.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "nvml_abi.h"
#include "xpuperf/core/dynamic_library.h"
#include "xpuperf/core/status.h"

namespace xpuperf::nvidia {

// The functions of the loaded library. Required ones are never null; an optional one is null when
// the driver predates it (the name of the symbol is kept for the reason xpuperf gives).
struct NvmlApi {
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::DeviceGetCountFn device_get_count = nullptr;
  nvml::DeviceGetHandleByIndexFn device_get_handle_by_index = nullptr;

  nvml::SystemGetDriverVersionFn system_get_driver_version = nullptr;
  nvml::SystemGetCudaDriverVersionFn system_get_cuda_driver_version = nullptr;
  // Names the host's pids, which /proc inside a container does not know.
  nvml::SystemGetProcessNameFn system_get_process_name = nullptr;
  nvml::DeviceGetStringFn device_get_name = nullptr;
  nvml::DeviceGetStringFn device_get_uuid = nullptr;
  nvml::DeviceGetPciInfoFn device_get_pci_info = nullptr;
  nvml::DeviceGetCudaComputeCapabilityFn device_get_cuda_compute_capability = nullptr;
  nvml::DeviceGetUintFn device_get_architecture = nullptr;
  nvml::DeviceGetCpuAffinityFn device_get_cpu_affinity = nullptr;
  nvml::DeviceGetMemoryInfoFn device_get_memory_info = nullptr;
  nvml::DeviceGetMemoryInfoV2Fn device_get_memory_info_v2 = nullptr;
  nvml::DeviceGetUtilizationRatesFn device_get_utilization_rates = nullptr;
  nvml::DeviceGetUintFn device_get_power_usage = nullptr;
  nvml::DeviceGetTotalEnergyConsumptionFn device_get_total_energy_consumption = nullptr;
  nvml::DeviceGetTemperatureVFn device_get_temperature_v = nullptr;
  nvml::DeviceGetTemperatureFn device_get_temperature = nullptr;
  nvml::DeviceGetTemperatureFn device_get_temperature_threshold = nullptr;
  nvml::DeviceGetClockInfoFn device_get_clock_info = nullptr;
  nvml::DeviceGetClockInfoFn device_get_max_clock_info = nullptr;
  nvml::DeviceGetUintFn device_get_persistence_mode = nullptr;
  nvml::DeviceGetEccModeFn device_get_ecc_mode = nullptr;
  nvml::DeviceGetUintFn device_get_power_management_limit = nullptr;
  nvml::DeviceGetUintFn device_get_power_management_default_limit = nullptr;
  nvml::DeviceGetUintFn device_get_enforced_power_limit = nullptr;
  nvml::DeviceGetLimitConstraintsFn device_get_power_management_limit_constraints = nullptr;
  nvml::DeviceGetUintFn device_get_performance_state = nullptr;
  nvml::DeviceGetUintFn device_get_curr_pcie_link_generation = nullptr;
  nvml::DeviceGetUintFn device_get_max_pcie_link_generation = nullptr;
  nvml::DeviceGetUintFn device_get_curr_pcie_link_width = nullptr;
  nvml::DeviceGetUintFn device_get_max_pcie_link_width = nullptr;
  nvml::DeviceGetClocksEventReasonsFn device_get_current_clocks_event_reasons = nullptr;
  std::string_view current_clocks_event_reasons_symbol;
  nvml::DeviceGetClocksEventReasonsFn device_get_supported_clocks_event_reasons = nullptr;
  nvml::DeviceGetPcieThroughputFn device_get_pcie_throughput = nullptr;
  nvml::DeviceGetFieldValuesFn device_get_field_values = nullptr;
  nvml::DeviceGetRunningProcessesFn device_get_compute_running_processes = nullptr;
  std::string_view compute_running_processes_symbol;
  size_t process_entry_bytes = 0;  // stride of the entries the chosen symbol writes
  nvml::DeviceGetProcessUtilizationFn device_get_process_utilization = nullptr;

  // GPM (Hopper and newer; drivers from R520): all five or none.
  nvml::GpmQueryDeviceSupportFn gpm_query_device_support = nullptr;
  nvml::GpmSampleAllocFn gpm_sample_alloc = nullptr;
  nvml::GpmSampleFreeFn gpm_sample_free = nullptr;
  nvml::GpmSampleGetFn gpm_sample_get = nullptr;
  nvml::GpmMetricsGetFn gpm_metrics_get = nullptr;
  std::string_view missing_gpm_symbol;  // first GPM symbol the library lacks, empty when all there

  // XID events.
  nvml::EventSetCreateFn event_set_create = nullptr;
  nvml::EventSetFreeFn event_set_free = nullptr;
  nvml::DeviceRegisterEventsFn device_register_events = nullptr;
  nvml::DeviceGetSupportedEventTypesFn device_get_supported_event_types = nullptr;
  nvml::EventSetWaitFn event_set_wait = nullptr;
  std::string_view missing_event_symbol;

  // MIG: all five or none (missing_mig_symbol names the first one absent).
  nvml::DeviceGetMigModeFn device_get_mig_mode = nullptr;
  nvml::DeviceGetUintFn device_get_max_mig_device_count = nullptr;
  nvml::DeviceGetMigDeviceHandleByIndexFn device_get_mig_device_handle_by_index = nullptr;
  nvml::DeviceGetUintFn device_get_gpu_instance_id = nullptr;
  nvml::DeviceGetUintFn device_get_compute_instance_id = nullptr;
  std::string_view missing_mig_symbol;

  bool has_mig() const { return missing_mig_symbol.empty(); }
  bool has_gpm() const { return missing_gpm_symbol.empty(); }
  bool has_events() const { return missing_event_symbol.empty(); }
};

// The library to open: `explicit_path` when set, else $XPUPERF_NVML_LIBRARY, else
// "libnvidia-ml.so.1" (found by the dynamic loader's search).
inline constexpr std::string_view kNvmlLibraryName = "libnvidia-ml.so.1";
inline constexpr std::string_view kNvmlLibraryEnv = "XPUPERF_NVML_LIBRARY";
std::string NvmlLibraryPath(const std::string& explicit_path);

class NvmlLibrary {
 public:
  // kUnavailable "libnvidia-ml.so.1 not found (<dlerror>)", "... lacks nvmlInit_v2" or
  // "nvmlInit_v2 failed: <reason>".
  static Result<std::unique_ptr<NvmlLibrary>> Open(const std::string& path);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const NvmlApi& api() const { return api_; }
  // "Not Supported (NVML_ERROR_NOT_SUPPORTED)".
  std::string Describe(nvml::Return code) const;

 private:
  explicit NvmlLibrary(DynamicLibrary library) : library_(std::move(library)) {}
  DynamicLibrary library_;
  bool initialized_ = false;
  NvmlApi api_;
};

}  // namespace xpuperf::nvidia

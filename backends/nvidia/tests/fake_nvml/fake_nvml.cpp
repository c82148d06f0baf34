// A fake libnvidia-ml.so.1: the NVML symbols the backend resolves, with C linkage and the ABI of
// nvml_abi.h, serving the GPUs of a scenario file. Built twice: a current driver, and (with
// FAKE_NVML_OLD_DRIVER) an older one without GPM, the 12.2+ clock-event names and
// nvmlDeviceGetTemperatureV.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "fake_scenario.h"
#include "nvml_abi.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

namespace nvml = xpuperf::nvml;
using fake_nvml::FakeGpu;

struct FakeSample {
  FakeGpu* gpu = nullptr;
  int index = -1;  // which scripted sample it holds
};

struct FakeEventSet {
  int unused = 0;
};

struct State {
  std::mutex mutex;
  int init_count = 0;
  fake_nvml::Scenario scenario;
};

State& TheState() {
  static State state;
  return state;
}

FakeGpu* GpuOf(nvml::Device device) {
  for (auto& gpu : TheState().scenario.gpus) {
    if (reinterpret_cast<nvml::Device>(gpu.get()) == device) return gpu.get();
    for (auto& mig : gpu->migs) {
      if (reinterpret_cast<nvml::Device>(mig.get()) == device) return mig.get();
    }
  }
  return nullptr;
}

// The common checks of a device call: initialised, a handle of ours, not lost, no scripted error
// ("error.<function> = <code>"). Returns kSuccess when the call may proceed.
nvml::Return Check(nvml::Device device, const char* function, FakeGpu** out) {
  if (TheState().init_count == 0) return nvml::kErrorUninitialized;
  FakeGpu* gpu = GpuOf(device);
  if (gpu == nullptr) return nvml::kErrorInvalidArgument;
  if (gpu->IsLost()) return nvml::kErrorGpuIsLost;
  if (auto code = gpu->Number(std::string("error.") + function))
    return static_cast<nvml::Return>(*code);
  // "hang.<function> = 1": the call never returns (a GPU that stopped answering), holding the
  // library's lock as NVML does.
  if (gpu->Number(std::string("hang.") + function)) {
    for (;;) ::pause();
  }
  *out = gpu;
  return nvml::kSuccess;
}

#define CHECK_DEVICE(device)                          \
  std::lock_guard<std::mutex> lock(TheState().mutex); \
  FakeGpu* gpu = nullptr;                             \
  if (nvml::Return r = Check(device, __func__, &gpu); r != nvml::kSuccess) return r

nvml::Return CopyString(const std::string& value, char* out, unsigned int length) {
  if (value.size() + 1 > length) return nvml::kErrorInsufficientSize;
  std::memcpy(out, value.c_str(), value.size() + 1);
  return nvml::kSuccess;
}

template <typename T>
nvml::Return NumberInto(const FakeGpu* gpu, const char* key, T* out) {
  auto value = gpu->Number(key);
  if (!value) return nvml::kErrorNotSupported;
  *out = static_cast<T>(*value);
  return nvml::kSuccess;
}

nvml::Return RunningProcesses(FakeGpu* gpu, unsigned int* count, void* infos, size_t stride) {
  auto list = gpu->Get("processes");
  // processes_file: the list read from a file at each call (written by another process, e.g. a
  // batch job that "opens" the GPU); a missing file is no process.
  if (auto file = gpu->Get("processes_file")) {
    std::ifstream in(*file);
    std::string text;
    std::getline(in, text);
    list = text;
  }
  if (!list) return nvml::kErrorNotSupported;
  std::vector<std::pair<unsigned, unsigned long long>> processes;
  size_t pos = 0;
  while (pos < list->size()) {
    size_t comma = list->find(',', pos);
    if (comma == std::string::npos) comma = list->size();
    const std::string entry = list->substr(pos, comma - pos);
    const size_t colon = entry.find(':');
    if (colon != std::string::npos) {
      processes.emplace_back(std::stoul(entry.substr(0, colon)),
                             std::stoull(entry.substr(colon + 1)));
    }
    pos = comma + 1;
  }
  if (infos == nullptr || *count < processes.size()) {
    const bool none = processes.empty();
    *count = static_cast<unsigned>(processes.size());
    return none ? nvml::kSuccess : nvml::kErrorInsufficientSize;
  }
  auto* bytes = static_cast<unsigned char*>(infos);
  for (size_t i = 0; i < processes.size(); ++i) {
    nvml::ProcessInfoV2 entry{};
    entry.pid = processes[i].first;
    entry.usedGpuMemory = processes[i].second;
    // As the driver fills them: the MIG device's ids, 0xFFFFFFFF when MIG is off.
    entry.gpuInstanceId =
        static_cast<unsigned>(gpu->Number("gpu_instance_id").value_or(0xFFFFFFFF));
    entry.computeInstanceId =
        static_cast<unsigned>(gpu->Number("compute_instance_id").value_or(0xFFFFFFFF));
    std::memcpy(bytes + i * stride, &entry, stride);
  }
  *count = static_cast<unsigned>(processes.size());
  return nvml::kSuccess;
}

// MIG mode currently on (`mig_mode = 1`).
bool MigOn(const FakeGpu* gpu) { return gpu->parent == nullptr && gpu->Get("mig_mode") == "1"; }

}  // namespace

// ---- Lifecycle and system ----

FAKE_EXPORT nvml::Return nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  State& state = TheState();
  if (state.init_count == 0) {
    state.scenario = fake_nvml::LoadScenario(std::getenv("XPUPERF_FAKE_NVML_SCENARIO"));
    auto it = state.scenario.global.find("init_error");
    if (it != state.scenario.global.end()) return static_cast<nvml::Return>(std::stoi(it->second));
  }
  ++state.init_count;
  return nvml::kSuccess;
}

// What NVIDIA's own Python bindings (nvidia-ml-py) call for nvmlInit(); flags are not scripted.
FAKE_EXPORT nvml::Return nvmlInitWithFlags(unsigned int /*flags*/) { return nvmlInit_v2(); }

FAKE_EXPORT nvml::Return nvmlShutdown() {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  State& state = TheState();
  if (state.init_count == 0) return nvml::kErrorUninitialized;
  if (--state.init_count == 0) state.scenario = fake_nvml::Scenario{};
  return nvml::kSuccess;
}

FAKE_EXPORT const char* nvmlErrorString(nvml::Return code) {
  switch (code) {
    case 0:
      return "Success";
    case 1:
      return "Uninitialized";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 4:
      return "Insufficient Permissions";
    case 7:
      return "Insufficient Size";
    case 9:
      return "Driver Not Loaded";
    case 10:
      return "Timeout";
    case 13:
      return "Function Not Found";
    case 15:
      return "GPU is lost";
    case 25:
      return "Argument Version Mismatch";
    default:
      return "Unknown Error";
  }
}

FAKE_EXPORT nvml::Return nvmlSystemGetDriverVersion(char* out, unsigned int length) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  auto& global = TheState().scenario.global;
  auto it = global.find("driver_version");
  if (it == global.end()) return nvml::kErrorNotSupported;
  return CopyString(it->second, out, length);
}

FAKE_EXPORT nvml::Return nvmlSystemGetCudaDriverVersion_v2(int* version) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  auto& global = TheState().scenario.global;
  auto it = global.find("cuda_driver_version");
  if (it == global.end()) return nvml::kErrorNotSupported;
  *version = std::stoi(it->second);
  return nvml::kSuccess;
}

// Global key `process.<pid>.name`; NVML_ERROR_NOT_FOUND for a pid the scenario does not name.
FAKE_EXPORT nvml::Return nvmlSystemGetProcessName(unsigned int pid, char* out,
                                                  unsigned int length) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  State& state = TheState();
  if (state.init_count == 0) return nvml::kErrorUninitialized;
  auto& global = state.scenario.global;
  auto it = global.find("process." + std::to_string(pid) + ".name");
  if (it == global.end()) return nvml::kErrorNotFound;
  if (out == nullptr || length == 0) return nvml::kErrorInvalidArgument;
  // NVML truncates the name to the buffer rather than failing.
  const size_t n = std::min<size_t>(it->second.size(), length - 1);
  std::memcpy(out, it->second.data(), n);
  out[n] = '\0';
  return nvml::kSuccess;
}

// ---- Enumeration and identity ----

FAKE_EXPORT nvml::Return nvmlDeviceGetCount_v2(unsigned int* count) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  State& state = TheState();
  if (state.init_count == 0) return nvml::kErrorUninitialized;
  auto error = state.scenario.global.find("count_error");
  if (error != state.scenario.global.end()) return std::stoi(error->second);
  *count = static_cast<unsigned>(state.scenario.gpus.size());
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml::Device* device) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  State& state = TheState();
  if (state.init_count == 0) return nvml::kErrorUninitialized;
  if (index >= state.scenario.gpus.size()) return nvml::kErrorInvalidArgument;
  FakeGpu* gpu = state.scenario.gpus[index].get();
  if (auto code = gpu->Number("handle_error")) return static_cast<nvml::Return>(*code);
  *device = reinterpret_cast<nvml::Device>(gpu);
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetName(nvml::Device device, char* out, unsigned int length) {
  CHECK_DEVICE(device);
  auto name = gpu->Get("name");
  return name ? CopyString(*name, out, length) : nvml::kErrorNotSupported;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* out, unsigned int length) {
  CHECK_DEVICE(device);
  auto uuid = gpu->Get("uuid");
  return uuid ? CopyString(*uuid, out, length) : nvml::kErrorNotSupported;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPciInfo_v3(nvml::Device device, nvml::PciInfo* pci) {
  CHECK_DEVICE(device);
  auto bus_id = gpu->Get("bus_id");
  if (!bus_id) return nvml::kErrorNotSupported;
  *pci = nvml::PciInfo{};
  CopyString(*bus_id, pci->busId, sizeof(pci->busId));
  pci->pciDeviceId = static_cast<unsigned>(gpu->Number("pci_device_id").value_or(0));
  pci->pciSubSystemId = static_cast<unsigned>(gpu->Number("pci_subsystem_id").value_or(0));
  // As the driver fills them: the numbers of "DDDDDDDD:BB:DD.F" and the legacy 16-byte form
  // with a 4-digit domain ("0000:19:00.0").
  unsigned domain = 0, bus = 0, slot = 0, function = 0;
  if (std::sscanf(bus_id->c_str(), "%x:%x:%x.%x", &domain, &bus, &slot, &function) == 4) {
    pci->domain = domain;
    pci->bus = bus;
    pci->device = slot;
    std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X", domain & 0xffff,
                  bus, slot, function);
  }
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetCudaComputeCapability(nvml::Device device, int* major,
                                                            int* minor) {
  CHECK_DEVICE(device);
  auto cc = gpu->Get("compute_capability");
  if (!cc) return nvml::kErrorNotSupported;
  *major = std::stoi(*cc);
  *minor = std::stoi(cc->substr(cc->find('.') + 1));
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetArchitecture(nvml::Device device, unsigned int* code) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "architecture", code);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetCpuAffinity(nvml::Device device, unsigned int words,
                                                  unsigned long* mask) {
  CHECK_DEVICE(device);
  auto value = gpu->Number("cpu_affinity_mask");
  if (!value) return nvml::kErrorNotSupported;
  for (unsigned i = 0; i < words; ++i) mask[i] = 0;
  if (words > 0) mask[0] = static_cast<unsigned long>(*value);
  return nvml::kSuccess;
}

// ---- Memory, utilisation, power, thermal, clocks, PCIe ----

FAKE_EXPORT nvml::Return nvmlDeviceGetMemoryInfo_v2(nvml::Device device, nvml::MemoryV2* memory) {
  CHECK_DEVICE(device);
  // A wrong version is answered as the real library does (FUNCTION_NOT_FOUND).
  if (memory->version != nvml::kMemoryV2Version) return nvml::kErrorFunctionNotFound;
  auto total = gpu->Number("memory_total");
  if (!total) return nvml::kErrorNotSupported;
  memory->total = *total;
  memory->reserved = gpu->Number("memory_reserved").value_or(0);
  memory->used = gpu->Number("memory_used").value_or(0);
  memory->free = memory->total - memory->reserved - memory->used;
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device device, nvml::MemoryV1* memory) {
  CHECK_DEVICE(device);
  auto total = gpu->Number("memory_total");
  if (!total) return nvml::kErrorNotSupported;
  memory->total = *total;
  memory->used =
      gpu->Number("memory_used").value_or(0) + gpu->Number("memory_reserved").value_or(0);
  memory->free = memory->total - memory->used;
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetUtilizationRates(nvml::Device device,
                                                       nvml::Utilization* utilization) {
  CHECK_DEVICE(device);
  if (MigOn(gpu) || gpu->parent != nullptr) return nvml::kErrorNotSupported;  // as NVML on MIG
  auto gpu_percent = gpu->Number("utilization_gpu");
  if (!gpu_percent) return nvml::kErrorNotSupported;
  utilization->gpu = static_cast<unsigned>(*gpu_percent);
  utilization->memory = static_cast<unsigned>(gpu->Number("utilization_memory").value_or(0));
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPowerUsage(nvml::Device device, unsigned int* milliwatts) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "power_mw", milliwatts);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetTotalEnergyConsumption(nvml::Device device,
                                                             unsigned long long* millijoules) {
  CHECK_DEVICE(device);
  auto base = gpu->Number("energy_mj");
  if (!base) return NumberInto(gpu, "energy_mj", millijoules);
  // energy_mj_step: the counter advances by that much at every call, so a test knows the exact
  // energy a sampler saw between its first and last reading.
  *millijoules = *base + gpu->Number("energy_mj_step").value_or(0) * gpu->energy_calls++;
  return nvml::kSuccess;
}

#ifndef FAKE_NVML_OLD_DRIVER
FAKE_EXPORT nvml::Return nvmlDeviceGetTemperatureV(nvml::Device device, nvml::TemperatureV1* t) {
  CHECK_DEVICE(device);
  if (t->version != nvml::kTemperatureV1Version) return nvml::kErrorArgumentVersionMismatch;
  if (t->sensorType != nvml::kTemperatureGpu) return nvml::kErrorInvalidArgument;
  return NumberInto(gpu, "temperature_gpu", &t->temperature);
}
#endif

FAKE_EXPORT nvml::Return nvmlDeviceGetTemperature(nvml::Device device, int sensor,
                                                  unsigned int* celsius) {
  CHECK_DEVICE(device);
  if (sensor != nvml::kTemperatureGpu) return nvml::kErrorInvalidArgument;
  return NumberInto(gpu, "temperature_gpu", celsius);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetClockInfo(nvml::Device device, int type, unsigned int* mhz) {
  CHECK_DEVICE(device);
  if (type == nvml::kClockSm) return NumberInto(gpu, "clock_sm_mhz", mhz);
  if (type == nvml::kClockMemory) return NumberInto(gpu, "clock_memory_mhz", mhz);
  return nvml::kErrorNotSupported;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetMaxClockInfo(nvml::Device device, int type,
                                                   unsigned int* mhz) {
  CHECK_DEVICE(device);
  if (type == nvml::kClockSm) return NumberInto(gpu, "clock_sm_max_mhz", mhz);
  if (type == nvml::kClockMemory) return NumberInto(gpu, "clock_memory_max_mhz", mhz);
  return nvml::kErrorNotSupported;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetTemperatureThreshold(nvml::Device device, int threshold,
                                                           unsigned int* celsius) {
  CHECK_DEVICE(device);
  static const char* const kKeys[] = {"temperature_shutdown", "temperature_slowdown",
                                      "temperature_memory_max", "temperature_gpu_max"};
  if (threshold < 0 || threshold > 3) return nvml::kErrorNotSupported;
  return NumberInto(gpu, kKeys[threshold], celsius);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPowerManagementLimit(nvml::Device device, unsigned int* mw) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "power_limit_mw", mw);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetEnforcedPowerLimit(nvml::Device device, unsigned int* mw) {
  CHECK_DEVICE(device);
  if (auto enforced = gpu->Number("power_limit_enforced_mw")) {
    *mw = static_cast<unsigned>(*enforced);
    return nvml::kSuccess;
  }
  return NumberInto(gpu, "power_limit_mw", mw);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPowerManagementDefaultLimit(nvml::Device device,
                                                                  unsigned int* mw) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "power_limit_default_mw", mw);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPowerManagementLimitConstraints(nvml::Device device,
                                                                      unsigned int* min_mw,
                                                                      unsigned int* max_mw) {
  CHECK_DEVICE(device);
  auto min = gpu->Number("power_limit_min_mw"), max = gpu->Number("power_limit_max_mw");
  if (!min || !max) return nvml::kErrorNotSupported;
  *min_mw = static_cast<unsigned>(*min);
  *max_mw = static_cast<unsigned>(*max);
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPerformanceState(nvml::Device device, unsigned int* state) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "pstate", state);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetCurrPcieLinkGeneration(nvml::Device device,
                                                             unsigned int* generation) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "pcie_gen", generation);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetMaxPcieLinkGeneration(nvml::Device device,
                                                            unsigned int* generation) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "pcie_gen_max", generation);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetCurrPcieLinkWidth(nvml::Device device, unsigned int* lanes) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "pcie_width", lanes);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetMaxPcieLinkWidth(nvml::Device device, unsigned int* lanes) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "pcie_width_max", lanes);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPersistenceMode(nvml::Device device, unsigned int* mode) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "persistence_mode", mode);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetEccMode(nvml::Device device, unsigned int* current,
                                              unsigned int* pending) {
  CHECK_DEVICE(device);
  auto mode = gpu->Number("ecc_mode");
  if (!mode) return nvml::kErrorNotSupported;
  *current = static_cast<unsigned>(*mode);
  *pending = static_cast<unsigned>(gpu->Number("ecc_mode_pending").value_or(*mode));
  return nvml::kSuccess;
}

namespace {
nvml::Return CurrentReasons(nvml::Device device, unsigned long long* mask) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "clock_events", mask);
}
nvml::Return SupportedReasons(nvml::Device device, unsigned long long* mask) {
  CHECK_DEVICE(device);
  return NumberInto(gpu, "clock_events_supported", mask);
}
}  // namespace

#ifndef FAKE_NVML_OLD_DRIVER
FAKE_EXPORT nvml::Return nvmlDeviceGetCurrentClocksEventReasons(nvml::Device device,
                                                                unsigned long long* mask) {
  return CurrentReasons(device, mask);
}
FAKE_EXPORT nvml::Return nvmlDeviceGetSupportedClocksEventReasons(nvml::Device device,
                                                                  unsigned long long* mask) {
  return SupportedReasons(device, mask);
}
#endif
FAKE_EXPORT nvml::Return nvmlDeviceGetCurrentClocksThrottleReasons(nvml::Device device,
                                                                   unsigned long long* mask) {
  return CurrentReasons(device, mask);
}
FAKE_EXPORT nvml::Return nvmlDeviceGetSupportedClocksThrottleReasons(nvml::Device device,
                                                                     unsigned long long* mask) {
  return SupportedReasons(device, mask);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetPcieThroughput(nvml::Device device, int counter,
                                                     unsigned int* kilobytes_per_second) {
  CHECK_DEVICE(device);
  if (counter == nvml::kPcieTxBytes) return NumberInto(gpu, "pcie_tx_kbps", kilobytes_per_second);
  if (counter == nvml::kPcieRxBytes) return NumberInto(gpu, "pcie_rx_kbps", kilobytes_per_second);
  return nvml::kErrorInvalidArgument;
}

// "field.<id> = value": unsigned long long, except the memory temperature (unsigned int).
FAKE_EXPORT nvml::Return nvmlDeviceGetFieldValues(nvml::Device device, int count,
                                                  nvml::FieldValue* values) {
  CHECK_DEVICE(device);
  for (int i = 0; i < count; ++i) {
    nvml::FieldValue& field = values[i];
    auto value = gpu->Number("field." + std::to_string(field.fieldId));
    if (!value) {
      field.nvmlReturn = nvml::kErrorNotSupported;
      continue;
    }
    field.nvmlReturn = nvml::kSuccess;
    if (field.fieldId == nvml::kFieldMemoryTemperature) {
      field.valueType = nvml::kValueUnsignedInt;
      field.value.uiVal = static_cast<unsigned>(*value);
    } else {
      field.valueType = nvml::kValueUnsignedLongLong;
      field.value.ullVal = *value;
    }
  }
  // Like NVML: a status per field, SUCCESS for the call.
  return nvml::kSuccess;
}

// ---- Processes ----

FAKE_EXPORT nvml::Return nvmlDeviceGetComputeRunningProcesses_v3(nvml::Device device,
                                                                 unsigned int* count, void* infos) {
  CHECK_DEVICE(device);
  return RunningProcesses(gpu, count, infos, sizeof(nvml::ProcessInfoV2));
}

FAKE_EXPORT nvml::Return nvmlDeviceGetComputeRunningProcesses_v2(nvml::Device device,
                                                                 unsigned int* count, void* infos) {
  CHECK_DEVICE(device);
  return RunningProcesses(gpu, count, infos, sizeof(nvml::ProcessInfoV2));
}

FAKE_EXPORT nvml::Return nvmlDeviceGetComputeRunningProcesses(nvml::Device device,
                                                              unsigned int* count, void* infos) {
  CHECK_DEVICE(device);
  return RunningProcesses(gpu, count, infos, sizeof(nvml::ProcessInfoV1));
}

// `process_utilization` = pid:sm:mem:enc:dec,... ; each sample stamped now (wall-clock µs), as
// the driver's newest sample would be. Asked with a NULL buffer, the count and INSUFFICIENT_SIZE.
FAKE_EXPORT nvml::Return nvmlDeviceGetProcessUtilization(nvml::Device device,
                                                         nvml::ProcessUtilizationSample* samples,
                                                         unsigned int* count,
                                                         unsigned long long last_seen_us) {
  CHECK_DEVICE(device);
  if (MigOn(gpu) || gpu->parent != nullptr) return nvml::kErrorNotSupported;  // as NVML on MIG
  auto list = gpu->Get("process_utilization");
  if (!list) return nvml::kErrorNotSupported;
  if (count == nullptr) return nvml::kErrorInvalidArgument;
  const auto now_us =
      static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
  std::vector<nvml::ProcessUtilizationSample> entries;
  size_t pos = 0;
  while (pos < list->size()) {
    size_t comma = list->find(',', pos);
    if (comma == std::string::npos) comma = list->size();
    nvml::ProcessUtilizationSample e{};
    if (std::sscanf(list->substr(pos, comma - pos).c_str(), "%u:%u:%u:%u:%u", &e.pid, &e.smUtil,
                    &e.memUtil, &e.encUtil, &e.decUtil) == 5) {
      e.timeStamp = now_us;
      entries.push_back(e);
    }
    pos = comma + 1;
  }
  if (entries.empty() || last_seen_us >= now_us) return nvml::kErrorNotFound;
  if (samples == nullptr || *count < entries.size()) {
    *count = static_cast<unsigned>(entries.size());
    return nvml::kErrorInsufficientSize;
  }
  std::copy(entries.begin(), entries.end(), samples);
  *count = static_cast<unsigned>(entries.size());
  return nvml::kSuccess;
}

// ---- XID events ----

FAKE_EXPORT nvml::Return nvmlEventSetCreate(nvml::EventSet* set) {
  *set = reinterpret_cast<nvml::EventSet>(new FakeEventSet());
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlEventSetFree(nvml::EventSet set) {
  delete reinterpret_cast<FakeEventSet*>(set);
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetSupportedEventTypes(nvml::Device device,
                                                          unsigned long long* types) {
  CHECK_DEVICE(device);
  *types = gpu->Get("xid_events") == "1" ? nvml::kEventXidCriticalError | 0x3 : 0x3;
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceRegisterEvents(nvml::Device device, unsigned long long types,
                                                  nvml::EventSet set) {
  CHECK_DEVICE(device);
  if ((types & nvml::kEventXidCriticalError) == 0 || gpu->Get("xid_events") != "1")
    return nvml::kErrorNotSupported;
  gpu->events_registered = true;
  return nvml::kSuccess;
}

// "xids = 79,48": delivered in order, one per wait, then TIMEOUT.
FAKE_EXPORT nvml::Return nvmlEventSetWait_v2(nvml::EventSet set, nvml::EventData* data,
                                             unsigned int timeout_ms) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  for (auto& gpu : TheState().scenario.gpus) {
    if (!gpu->events_registered) continue;
    auto xids = gpu->Get("xids");
    if (!xids) continue;
    std::vector<unsigned long long> list;
    for (size_t pos = 0; pos < xids->size();) {
      size_t comma = xids->find(',', pos);
      if (comma == std::string::npos) comma = xids->size();
      list.push_back(std::stoull(xids->substr(pos, comma - pos)));
      pos = comma + 1;
    }
    if (gpu->xids_delivered >= static_cast<int>(list.size())) continue;
    *data = nvml::EventData{};
    data->device = reinterpret_cast<nvml::Device>(gpu.get());
    data->eventType = nvml::kEventXidCriticalError;
    data->eventData = list[gpu->xids_delivered++];
    data->gpuInstanceId = 0xFFFFFFFF;
    data->computeInstanceId = 0xFFFFFFFF;
    return nvml::kSuccess;
  }
  return nvml::kErrorTimeout;
}

// ---- MIG ----
// A GPU without `mig_mode` cannot do MIG (NOT_SUPPORTED); `mig_mode_pending` defaults to the
// current mode; `mig_max_devices` (default 7) is the count nvmlDeviceGetMaxMigDeviceCount gives
// in MIG mode. MIG handles exist only for the scripted slots; other indexes below the maximum
// answer NOT_FOUND, as the driver does for slots without an instance.

FAKE_EXPORT nvml::Return nvmlDeviceGetMigMode(nvml::Device device, unsigned int* current,
                                              unsigned int* pending) {
  CHECK_DEVICE(device);
  if (gpu->parent != nullptr) return nvml::kErrorNotSupported;
  auto mode = gpu->Number("mig_mode");
  if (!mode) return nvml::kErrorNotSupported;
  *current = static_cast<unsigned>(*mode);
  *pending = static_cast<unsigned>(gpu->Number("mig_mode_pending").value_or(*mode));
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceIsMigDeviceHandle(nvml::Device device, unsigned int* is_mig) {
  CHECK_DEVICE(device);
  *is_mig = gpu->parent != nullptr ? 1 : 0;
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetMaxMigDeviceCount(nvml::Device device, unsigned int* count) {
  CHECK_DEVICE(device);
  if (gpu->parent != nullptr || !gpu->Get("mig_mode")) return nvml::kErrorNotSupported;
  *count = MigOn(gpu) ? static_cast<unsigned>(gpu->Number("mig_max_devices").value_or(7)) : 0;
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetMigDeviceHandleByIndex(nvml::Device device,
                                                             unsigned int index,
                                                             nvml::Device* mig_device) {
  CHECK_DEVICE(device);
  if (gpu->parent != nullptr || !gpu->Get("mig_mode")) return nvml::kErrorNotSupported;
  if (!MigOn(gpu)) return nvml::kErrorInvalidArgument;
  if (index >= gpu->Number("mig_max_devices").value_or(7)) return nvml::kErrorInvalidArgument;
  for (auto& mig : gpu->migs) {
    if (mig->slot == index) {
      *mig_device = reinterpret_cast<nvml::Device>(mig.get());
      return nvml::kSuccess;
    }
  }
  return nvml::kErrorNotFound;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvml::Device mig_device,
                                                                      nvml::Device* device) {
  CHECK_DEVICE(mig_device);
  if (gpu->parent == nullptr) return nvml::kErrorInvalidArgument;
  *device = reinterpret_cast<nvml::Device>(gpu->parent);
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlDeviceGetGpuInstanceId(nvml::Device device, unsigned int* id) {
  CHECK_DEVICE(device);
  if (gpu->parent == nullptr) return nvml::kErrorInvalidArgument;  // not a MIG handle
  return NumberInto(gpu, "gpu_instance_id", id);
}

FAKE_EXPORT nvml::Return nvmlDeviceGetComputeInstanceId(nvml::Device device, unsigned int* id) {
  CHECK_DEVICE(device);
  if (gpu->parent == nullptr) return nvml::kErrorInvalidArgument;
  return NumberInto(gpu, "compute_instance_id", id);
}

// ---- GPM ----
#ifndef FAKE_NVML_OLD_DRIVER

FAKE_EXPORT nvml::Return nvmlGpmQueryDeviceSupport(nvml::Device device, nvml::GpmSupport* support) {
  CHECK_DEVICE(device);
  if (support->version != nvml::kGpmSupportVersion) return nvml::kErrorArgumentVersionMismatch;
  support->isSupportedDevice = gpu->Get("gpm_supported") == "1" ? 1 : 0;
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlGpmSampleAlloc(nvml::GpmSample* sample) {
  *sample = reinterpret_cast<nvml::GpmSample>(new FakeSample());
  return nvml::kSuccess;
}

FAKE_EXPORT nvml::Return nvmlGpmSampleFree(nvml::GpmSample sample) {
  delete reinterpret_cast<FakeSample*>(sample);
  return nvml::kSuccess;
}

// The k-th call on a GPU holds scripted sample k ("gpm.<k>.<counter>"); past the last scripted
// sample the counters keep growing at the rate of the last scripted interval.
FAKE_EXPORT nvml::Return nvmlGpmSampleGet(nvml::Device device, nvml::GpmSample sample) {
  CHECK_DEVICE(device);
  if (!gpu->Get("gpm.0.time_ns")) return nvml::kErrorNotSupported;
  auto* fake = reinterpret_cast<FakeSample*>(sample);
  fake->gpu = gpu;
  fake->index = gpu->gpm_samples_taken++;
  return nvml::kSuccess;
}

namespace {

// The stated formula of each GPM metric from two scripted samples (README.md).
nvml::Return GpmValue(const FakeGpu& gpu, int first, int second, unsigned id, double* value) {
  int last = 0;
  while (gpu.Real("gpm." + std::to_string(last + 1) + ".time_ns")) ++last;
  // Counter `name` in sample k; beyond the last scripted sample, extrapolated linearly.
  auto at = [&](int k, const std::string& name) -> std::optional<double> {
    auto scripted = [&](int i) { return gpu.Real("gpm." + std::to_string(i) + "." + name); };
    if (k <= last) return scripted(k);
    auto end = scripted(last);
    auto before = last > 0 ? scripted(last - 1) : end;
    if (!end || !before) return std::nullopt;
    return *end + (k - last) * (*end - *before);
  };
  auto delta = [&](const char* counter) -> std::optional<double> {
    auto a = at(first, counter);
    auto b = at(second, counter);
    if (!a || !b) return std::nullopt;
    return *b - *a;
  };
  const double seconds = delta("time_ns").value_or(0) / 1e9;
  if (seconds <= 0) return nvml::kErrorInvalidArgument;
  const char* active = nullptr;
  const char* bytes = nullptr;
  switch (id) {
    case nvml::kGpmSmOccupancy:
      active = "sm_occupancy";
      break;
    case nvml::kGpmAnyTensorUtil:
      active = "tensor_active";
      break;
    case nvml::kGpmFp64Util:
      active = "fp64_active";
      break;
    case nvml::kGpmFp32Util:
      active = "fp32_active";
      break;
    case nvml::kGpmFp16Util:
      active = "fp16_active";
      break;
    case nvml::kGpmPcieTxPerSec:
      bytes = "pcie_tx_bytes";
      break;
    case nvml::kGpmPcieRxPerSec:
      bytes = "pcie_rx_bytes";
      break;
    case nvml::kGpmNvlinkTotalRxPerSec:
      bytes = "nvlink_rx_bytes";
      break;
    case nvml::kGpmNvlinkTotalTxPerSec:
      bytes = "nvlink_tx_bytes";
      break;
    case nvml::kGpmDramBwUtil: {
      auto dram = delta("dram_bytes");
      auto peak = gpu.Real("gpm.dram_peak_bytes_per_second");
      if (!dram || !peak) return nvml::kErrorNotSupported;
      *value = 100.0 * *dram / (seconds * *peak);
      return nvml::kSuccess;
    }
    default:
      return nvml::kErrorNotSupported;
  }
  if (active != nullptr) {
    auto cycles = delta("cycles");
    auto busy = delta(active);
    if (!cycles || !busy) return nvml::kErrorNotSupported;
    if (*cycles <= 0) return nvml::kErrorInvalidArgument;
    *value = 100.0 * *busy / *cycles;
    return nvml::kSuccess;
  }
  auto moved = delta(bytes);
  if (!moved) return nvml::kErrorNotSupported;
  *value = *moved / seconds / (1024.0 * 1024.0);
  return nvml::kSuccess;
}

}  // namespace

FAKE_EXPORT nvml::Return nvmlGpmMetricsGet(nvml::GpmMetricsGet* request) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  if (request->version != nvml::kGpmMetricsGetVersion) return nvml::kErrorArgumentVersionMismatch;
  auto* first = reinterpret_cast<FakeSample*>(request->sample1);
  auto* second = reinterpret_cast<FakeSample*>(request->sample2);
  if (first == nullptr || second == nullptr || first->gpu == nullptr || first->gpu != second->gpu ||
      request->numMetrics > 98)
    return nvml::kErrorInvalidArgument;
  if (first->gpu->IsLost()) return nvml::kErrorGpuIsLost;
  for (unsigned i = 0; i < request->numMetrics; ++i) {
    nvml::GpmMetric& metric = request->metrics[i];
    metric.value = 0;
    metric.nvmlReturn =
        GpmValue(*first->gpu, first->index, second->index, metric.metricId, &metric.value);
    metric.shortName = nullptr;
    metric.longName = nullptr;
    metric.unit = nullptr;
  }
  return nvml::kSuccess;
}

#endif  // FAKE_NVML_OLD_DRIVER

// ---- Test control (not an NVML symbol) ----

// Makes GPU `index` answer GPU_IS_LOST from now on, as one that fell off the bus.
FAKE_EXPORT void xpuperfFakeNvmlSetLost(unsigned int index) {
  std::lock_guard<std::mutex> lock(TheState().mutex);
  auto& gpus = TheState().scenario.gpus;
  if (index < gpus.size()) gpus[index]->lost = true;
}

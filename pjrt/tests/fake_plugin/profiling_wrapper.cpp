// A PJRT plugin that wraps a real one (the library named by $XPUPERF_WRAPPED_PJRT_PLUGIN, XLA's CPU
// plugin in the tests) and adds what that one lacks: a profiler extension, and device memory
// statistics (fixed figures: 1 MiB in use of 16 GiB, so that a reader's use of them can be
// checked). Every other call goes to the real plugin. While a profiler session records, each
// PJRT_LoadedExecutable_Execute is timed from the call until its devices' completion events fire,
// and collected as an XSpace with one `XLA Modules` event per execution on plane /device:TPU:0, the
// shape libtpu's and JAX's traces have. So the benchmarks' device-time path runs end to end on a
// machine whose plugins either execute (CPU) or profile (libtpu) but not both.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "pjrt_c_api.h"
#include "profiler_abi.h"
#include "xspace_builder.h"

namespace {

namespace abi = xpuperf::pjrt::profiler_abi;

const PJRT_Api* g_real = nullptr;
PJRT_Api g_api{};

struct Recording {
  std::mutex mutex;
  bool on = false;
  std::vector<std::pair<int64_t, int64_t>> executions;  // start, end (steady clock, ns)
  std::string collected;
};
Recording g_recording;
int g_session = 0;  // the one session's handle (its address)

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

PJRT_Error* Execute(PJRT_LoadedExecutable_Execute_Args* args) {
  const int64_t start = NowNs();
  PJRT_Error* error = g_real->PJRT_LoadedExecutable_Execute(args);
  if (error != nullptr) return error;
  if (args->device_complete_events != nullptr) {
    for (size_t d = 0; d < args->num_devices; ++d) {
      PJRT_Event_Await_Args await{PJRT_Event_Await_Args_STRUCT_SIZE, nullptr,
                                  args->device_complete_events[d]};
      if (PJRT_Error* failed = g_real->PJRT_Event_Await(&await)) return failed;
    }
  }
  const int64_t end = NowNs();
  std::lock_guard<std::mutex> lock(g_recording.mutex);
  if (g_recording.on) g_recording.executions.emplace_back(start, end);
  return nullptr;
}

PJRT_Error* MemoryStats(PJRT_Device_MemoryStats_Args* args) {
  args->bytes_in_use = int64_t{1} << 20;
  args->bytes_limit = int64_t{16} << 30;
  args->bytes_limit_is_set = true;
  return nullptr;
}

abi::Error* Create(abi::CreateArgs* args) {
  args->profiler = reinterpret_cast<abi::Profiler*>(&g_session);
  return nullptr;
}
abi::Error* Destroy(abi::SessionArgs*) { return nullptr; }
abi::Error* Start(abi::SessionArgs*) {
  std::lock_guard<std::mutex> lock(g_recording.mutex);
  g_recording.on = true;
  g_recording.executions.clear();
  return nullptr;
}
abi::Error* Stop(abi::SessionArgs*) {
  std::lock_guard<std::mutex> lock(g_recording.mutex);
  g_recording.on = false;
  return nullptr;
}
abi::Error* CollectData(abi::CollectDataArgs* args) {
  std::lock_guard<std::mutex> lock(g_recording.mutex);
  using xpuperf::trace::testing::XEventSpec;
  using xpuperf::trace::testing::XLineSpec;
  using xpuperf::trace::testing::XPlaneSpec;
  const int64_t base = g_recording.executions.empty() ? 0 : g_recording.executions.front().first;
  XLineSpec modules{1, "XLA Modules", base, {}};
  for (const auto& [start, end] : g_recording.executions) {
    modules.events.push_back({"main", (start - base) * 1000, (end - start) * 1000, {}});
  }
  g_recording.collected =
      xpuperf::trace::testing::XSpaceBuilder().Plane({1, "/device:TPU:0", {modules}, {}}).Build();
  // As XLA's plugins answer: point the caller at the plugin's own copy.
  args->buffer = reinterpret_cast<uint8_t*>(g_recording.collected.data());
  args->buffer_size_in_bytes = g_recording.collected.size();
  return nullptr;
}

abi::Api g_profiler_api{sizeof(abi::Api), nullptr, nullptr, nullptr, nullptr,
                        Create,           Destroy, Start,   Stop,    CollectData};
abi::Extension g_extension{};

const PJRT_Api* Wrap() {
  const char* path = std::getenv("XPUPERF_WRAPPED_PJRT_PLUGIN");
  if (path == nullptr) return nullptr;
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return nullptr;
  auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(library, "GetPjrtApi"));
  if (get == nullptr || (g_real = get()) == nullptr) return nullptr;
  std::memcpy(&g_api, g_real, std::min(g_real->struct_size, sizeof(PJRT_Api)));
  g_api.struct_size = std::min(g_real->struct_size, sizeof(PJRT_Api));
  g_api.PJRT_LoadedExecutable_Execute = Execute;
  g_api.PJRT_Device_MemoryStats = MemoryStats;
  g_extension.base = {abi::kExtensionSize, PJRT_Extension_Type_Profiler, g_real->extension_start};
  g_extension.profiler_api = &g_profiler_api;
  g_api.extension_start = &g_extension.base;
  return &g_api;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  static const PJRT_Api* api = Wrap();
  return api;
}

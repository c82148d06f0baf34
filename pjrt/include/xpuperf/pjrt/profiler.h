// A PJRT plugin's own profiler (its PJRT_Extension_Type_Profiler extension: libtpu and the CUDA
// plugin offer one, XLA's CPU plugin 0.0.1 does not). A session records what the plugin traces
// between Start and Stop (device ops on their device's clock, host activity) and hands it back
// as a serialized tensorflow.profiler.XSpace, the bytes of an `.xplane.pb` (trace/xplane.h reads
// them). Thread-safety: one session is used by one thread at a time.
#pragma once

#include <memory>
#include <string>

#include "xpuperf/core/status.h"

struct PJRT_Api;

namespace xpuperf::pjrt {

namespace profiler_abi {
struct Api;
struct Profiler;
}  // namespace profiler_abi

inline constexpr const char* kNoProfilerExtension = "unsupported: plugin has no profiler extension";

// True when the plugin's extension chain holds a usable profiler extension.
bool HasProfilerExtension(const PJRT_Api* api);

class PluginProfiler {
 public:
  // Creates a session with the profiler's default levels (host tracer 2, device tracer 1).
  // kUnsupported kNoProfilerExtension when the plugin has none; the plugin's error otherwise.
  static Result<std::unique_ptr<PluginProfiler>> Create(const PJRT_Api* api);
  PluginProfiler(const PluginProfiler&) = delete;
  PluginProfiler& operator=(const PluginProfiler&) = delete;
  ~PluginProfiler();

  Status Start();
  Status Stop();
  // After Stop: the XSpace bytes as the plugin gives them. XLA's plugin_tracer_impl.cc (libtpu
  // 0.0.52 too) serializes into a buffer one byte longer than the message, so the bytes may end
  // in a stray 0 (pjrt_bench's ModuleSecondsFromXSpace retries without it). The data is handed
  // over once: libtpu answers a second call with an empty XSpace.
  Result<std::string> CollectXSpace();

 private:
  PluginProfiler(const profiler_abi::Api* api, profiler_abi::Profiler* session)
      : api_(api), session_(session) {}
  const profiler_abi::Api* api_;
  profiler_abi::Profiler* session_;
};

}  // namespace xpuperf::pjrt

#include "xpuperf/pjrt/profiler.h"

#include <fmt/format.h>

#include <algorithm>

#include "api_call.h"
#include "profiler_abi.h"
#include "xpuperf/core/protobuf_wire.h"

namespace xpuperf::pjrt {
namespace {

namespace abi = profiler_abi;

const abi::Api* FindProfilerApi(const PJRT_Api* api) {
  constexpr size_t kExtensionStartEnd = offsetof(PJRT_Api, extension_start) + sizeof(void*);
  if (api == nullptr || api->struct_size < kExtensionStartEnd) return nullptr;
  // A malformed chain must not loop forever: real plugins have a few dozen extensions.
  int hops = 0;
  for (const PJRT_Extension_Base* e = api->extension_start; e != nullptr && hops < 256;
       e = e->next, ++hops) {
    if (e->type != PJRT_Extension_Type_Profiler) continue;
    if (e->struct_size < abi::kExtensionSize) return nullptr;
    const auto* extension = reinterpret_cast<const abi::Extension*>(e);
    const abi::Api* profiler = extension->profiler_api;
    if (profiler == nullptr || profiler->struct_size < abi::kApiSize) return nullptr;
    if (profiler->create == nullptr || profiler->start == nullptr || profiler->stop == nullptr ||
        profiler->collect_data == nullptr || profiler->destroy == nullptr) {
      return nullptr;
    }
    return profiler;
  }
  return nullptr;
}

// Converts and frees a profiler error; `call` names the call ("PLUGIN_Profiler_Start").
Status TakeProfilerError(const abi::Api* api, abi::Error* error, std::string_view call) {
  if (error == nullptr) return Status::Ok();
  std::string text = "no message";
  if (api->error_message != nullptr) {
    abi::ErrorMessageArgs message{sizeof(abi::ErrorMessageArgs), nullptr, error, nullptr, 0};
    api->error_message(&message);
    if (message.message != nullptr) text.assign(message.message, message.message_size);
  }
  int code = PJRT_Error_Code_UNKNOWN;
  if (api->error_get_code != nullptr) {
    abi::ErrorGetCodeArgs get{sizeof(abi::ErrorGetCodeArgs), nullptr, error, 0};
    if (api->error_get_code(&get) == nullptr) code = get.code;
  }
  if (api->error_destroy != nullptr) {
    abi::ErrorDestroyArgs destroy{sizeof(abi::ErrorDestroyArgs), nullptr, error};
    api->error_destroy(&destroy);
  }
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return MakeError(
      ErrorCode::kInternal,
      fmt::format("{}: {}: {}", call, PjrtCodeName(static_cast<PJRT_Error_Code>(code)), text));
}

// tensorflow.ProfileOptions (tsl/profiler/protobuf/profiler_options.proto) with what
// ProfilerSession::DefaultOptions() sets: host_tracer_level (2) 2, device_tracer_level (3) 1,
// python_tracer_level (4) 0, version (5) 1 (version 0 would make the plugin use its defaults).
std::string DefaultProfileOptions() {
  wire::WireWriter options;
  options.Varint(2, 2);
  options.Varint(3, 1);
  options.Varint(4, 0);
  options.Varint(5, 1);
  return options.Take();
}

}  // namespace

bool HasProfilerExtension(const PJRT_Api* api) { return FindProfilerApi(api) != nullptr; }

Result<std::unique_ptr<PluginProfiler>> PluginProfiler::Create(const PJRT_Api* api) {
  const abi::Api* profiler = FindProfilerApi(api);
  if (profiler == nullptr) return MakeError(ErrorCode::kUnsupported, kNoProfilerExtension);
  const std::string options = DefaultProfileOptions();
  abi::CreateArgs create{sizeof(abi::CreateArgs), options.data(), options.size(), nullptr};
  XPUPERF_RETURN_IF_ERROR(
      TakeProfilerError(profiler, profiler->create(&create), "PLUGIN_Profiler_Create"));
  if (create.profiler == nullptr) {
    return MakeError(ErrorCode::kInternal, "PLUGIN_Profiler_Create returned no session");
  }
  return std::unique_ptr<PluginProfiler>(new PluginProfiler(profiler, create.profiler));
}

PluginProfiler::~PluginProfiler() {
  abi::SessionArgs destroy{sizeof(abi::SessionArgs), session_};
  (void)TakeProfilerError(api_, api_->destroy(&destroy), "PLUGIN_Profiler_Destroy");
}

Status PluginProfiler::Start() {
  abi::SessionArgs start{sizeof(abi::SessionArgs), session_};
  return TakeProfilerError(api_, api_->start(&start), "PLUGIN_Profiler_Start");
}

Status PluginProfiler::Stop() {
  abi::SessionArgs stop{sizeof(abi::SessionArgs), session_};
  return TakeProfilerError(api_, api_->stop(&stop), "PLUGIN_Profiler_Stop");
}

Result<std::string> PluginProfiler::CollectXSpace() {
  // The C API's header describes two calls (size, then the caller's buffer); XLA's own
  // implementations answer the first by pointing `buffer` at the plugin's copy, which JAX reads.
  abi::CollectDataArgs collect{sizeof(abi::CollectDataArgs), session_, nullptr, 0};
  XPUPERF_RETURN_IF_ERROR(
      TakeProfilerError(api_, api_->collect_data(&collect), "PLUGIN_Profiler_CollectData"));
  std::string bytes;
  if (collect.buffer != nullptr) {
    bytes.assign(reinterpret_cast<const char*>(collect.buffer), collect.buffer_size_in_bytes);
  } else if (collect.buffer_size_in_bytes > 0) {
    constexpr size_t kMaxBytes = size_t{4} << 30;  // a profile past 4 GiB is not a plausible one
    if (collect.buffer_size_in_bytes > kMaxBytes) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("PLUGIN_Profiler_CollectData: {} bytes announced",
                                   collect.buffer_size_in_bytes));
    }
    bytes.resize(collect.buffer_size_in_bytes);
    collect.buffer = reinterpret_cast<uint8_t*>(bytes.data());
    XPUPERF_RETURN_IF_ERROR(
        TakeProfilerError(api_, api_->collect_data(&collect), "PLUGIN_Profiler_CollectData"));
    bytes.resize(std::min(bytes.size(), collect.buffer_size_in_bytes));
  }
  return bytes;
}

}  // namespace xpuperf::pjrt

// Internal: the ABI of a PJRT plugin's profiler extension (PJRT_Extension_Type_Profiler), as
// OpenXLA defines it in xla/pjrt/c/pjrt_c_api_profiler_extension.h and
// xla/backends/profiler/plugin/profiler_c_api.h (PLUGIN_PROFILER_VERSION 1). Only the layout is
// restated here: every struct starts with its size, and the extension with PJRT_Extension_Base.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pjrt_c_api.h"

namespace xpuperf::pjrt::profiler_abi {

struct Profiler;  // the plugin's opaque session
struct Error;     // the plugin's opaque error

struct ErrorDestroyArgs {
  size_t struct_size;
  void* priv;
  Error* error;
};
struct ErrorMessageArgs {
  size_t struct_size;
  void* priv;
  const Error* error;
  const char* message;  // out, lives as long as the error
  size_t message_size;  // out
};
struct ErrorGetCodeArgs {
  size_t struct_size;
  void* priv;
  const Error* error;
  int code;  // out (absl numbering, as PJRT_Error_Code)
};
struct CreateArgs {
  size_t struct_size;
  const char* options;  // serialized tensorflow.ProfileOptions
  size_t options_size;
  Profiler* profiler;  // out
};
struct SessionArgs {  // destroy, start and stop
  size_t struct_size;
  Profiler* profiler;
};
struct CollectDataArgs {
  size_t struct_size;
  Profiler* profiler;
  uint8_t* buffer;              // in/out: null asks; XLA's plugins then point it at their copy
  size_t buffer_size_in_bytes;  // out
};

struct Api {
  size_t struct_size;
  void* priv;
  void (*error_destroy)(ErrorDestroyArgs*);
  void (*error_message)(ErrorMessageArgs*);
  Error* (*error_get_code)(ErrorGetCodeArgs*);
  Error* (*create)(CreateArgs*);
  Error* (*destroy)(SessionArgs*);
  Error* (*start)(SessionArgs*);
  Error* (*stop)(SessionArgs*);
  Error* (*collect_data)(CollectDataArgs*);
};
inline constexpr size_t kApiSize = offsetof(Api, collect_data) + sizeof(void*);

struct Extension {
  PJRT_Extension_Base base;  // type PJRT_Extension_Type_Profiler
  Api* profiler_api;
  int64_t traceme_context_id;  // only for the extension used as an argument extension
};
inline constexpr size_t kExtensionSize = offsetof(Extension, profiler_api) + sizeof(void*);

}  // namespace xpuperf::pjrt::profiler_abi

// Internal: calling the PJRT C API. Every call's PJRT_Error becomes an xpuperf Error carrying the
// plugin's code name and message; entries missing from an older plugin's table are reported as
// unsupported instead of being called.
#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>

#include "pjrt_c_api.h"
#include "xpuperf/core/status.h"

namespace xpuperf::pjrt {

// "INVALID_ARGUMENT", "NOT_FOUND", ... (absl numbering, as PJRT_Error_Code).
std::string_view PjrtCodeName(PJRT_Error_Code code);

// Converts and destroys `error` (null = success). `call` names the PJRT call for the message:
// "PJRT_Client_Compile: INVALID_ARGUMENT: <plugin's message>".
Status TakeError(const PJRT_Api* api, PJRT_Error* error, std::string_view call);

// True when the plugin's PJRT_Api table is long enough to hold the entry at `offset`.
inline bool HasEntry(const PJRT_Api* api, size_t offset) {
  return api->struct_size >= offset + sizeof(void*);
}

}  // namespace xpuperf::pjrt

// Calls api->Name(&args) if the plugin has it; returns the error from the enclosing function. A
// C++ exception thrown by the plugin through the C API (xla-cpu-pjrt 0.0.1 throws
// std::bad_variant_access for an option of the wrong type) stops here as an error.
#define XPUPERF_PJRT_CALL(api, Name, args)                                                     \
  do {                                                                                         \
    if (!::xpuperf::pjrt::HasEntry((api), offsetof(PJRT_Api, Name)) || (api)->Name == nullptr) \
      return ::xpuperf::MakeError(::xpuperf::ErrorCode::kUnsupported,                          \
                                  "unsupported: this PJRT plugin has no " #Name);              \
    PJRT_Error* xpuperf_pjrt_error_ = nullptr;                                                 \
    try {                                                                                      \
      xpuperf_pjrt_error_ = (api)->Name(&(args));                                              \
    } catch (const std::exception& e) {                                                        \
      return ::xpuperf::MakeError(::xpuperf::ErrorCode::kInternal,                             \
                                  std::string(#Name ": the plugin threw: ") + e.what());       \
    } catch (...) {                                                                            \
      return ::xpuperf::MakeError(::xpuperf::ErrorCode::kInternal,                             \
                                  #Name ": the plugin threw an exception");                    \
    }                                                                                          \
    XPUPERF_RETURN_IF_ERROR(::xpuperf::pjrt::TakeError((api), xpuperf_pjrt_error_, #Name));    \
  } while (false)

// Declares `PJRT_<Name>_Args var` zeroed, with struct_size set.
#define XPUPERF_PJRT_ARGS(Type, var)                                                   \
  Type var{}; /* NOLINT(bugprone-macro-parentheses): a type cannot be parenthesised */ \
  (var).struct_size = Type##_STRUCT_SIZE

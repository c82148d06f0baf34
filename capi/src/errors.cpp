// Status strings, the per-thread last error, the version, and string copying.
#include <algorithm>
#include <cstring>
#include <string>

#include "capi_internal.h"
#include "xpuperf/core/version.h"

namespace xpuperf::capi {
namespace {
thread_local std::string last_error;  // message of the last failed call on this thread
}  // namespace

int Fail(int status, std::string_view message) noexcept {
  try {
    last_error.assign(message);
  } catch (...) {
    // Keep the previous message; the status still tells the caller what kind of failure it was.
  }
  return status;
}

int StatusOf(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return XPUPERF_ERROR_INVALID_ARGUMENT;
    case ErrorCode::kNotFound:
      return XPUPERF_ERROR_NOT_FOUND;
    case ErrorCode::kUnsupported:
      return XPUPERF_ERROR_UNSUPPORTED;
    case ErrorCode::kUnavailable:
      return XPUPERF_ERROR_UNAVAILABLE;
    case ErrorCode::kIo:
      return XPUPERF_ERROR_IO;
    case ErrorCode::kParse:
      return XPUPERF_ERROR_PARSE;
    case ErrorCode::kInternal:
      return XPUPERF_ERROR_INTERNAL;
  }
  return XPUPERF_ERROR_INTERNAL;
}

int Fail(const Error& error) noexcept { return Fail(StatusOf(error.code), error.message); }

void CopyString(char* dst, size_t size, std::string_view src) noexcept {
  if (dst == nullptr || size == 0) return;
  size_t n = std::min(size - 1, src.size());
  // Cut before a UTF-8 continuation byte so that a truncated name stays valid text.
  if (n < src.size()) {
    while (n > 0 && (static_cast<unsigned char>(src[n]) & 0xC0) == 0x80) --n;
  }
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

}  // namespace xpuperf::capi

extern "C" {

XPUPERF_API const char* xpuperf_status_string(int status) {
  switch (status) {
    case XPUPERF_OK:
      return "ok";
    case XPUPERF_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case XPUPERF_ERROR_NOT_FOUND:
      return "not found";
    case XPUPERF_ERROR_UNSUPPORTED:
      return "unsupported";
    case XPUPERF_ERROR_UNAVAILABLE:
      return "unavailable";
    case XPUPERF_ERROR_IO:
      return "i/o error";
    case XPUPERF_ERROR_PARSE:
      return "parse error";
    case XPUPERF_ERROR_INTERNAL:
      return "internal error";
    case XPUPERF_ERROR_BUFFER_TOO_SMALL:
      return "buffer too small";
  }
  return "unknown status";
}

XPUPERF_API const char* xpuperf_last_error(void) { return xpuperf::capi::last_error.c_str(); }

XPUPERF_API const char* xpuperf_version(void) { return XPUPERF_VERSION; }

}  // extern "C"

// Shared by the C ABI sources: the session handle, error reporting and string copying. Not
// installed; nothing here is exported from libxpuperf.so.
#pragma once

#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/session.h"
#include "xpuperf/core/status.h"
#include "xpuperf/xpuperf.h"

struct xpuperf_session {
  std::unique_ptr<xpuperf::Session> session;

  // A read that did not fit the caller's array. The next read of the same metric and device
  // returns it instead of collecting again, so that a retry with a larger array sees the same
  // samples and does not shorten the interval of rate metrics.
  struct PendingRead {
    std::string metric;
    std::string device;  // "" for every device
    std::vector<xpuperf_sample> samples;
    xpuperf_reading_state state = XPUPERF_READING_OK;
    std::string reason;
  };
  std::optional<PendingRead> pending;
};

namespace xpuperf::capi {

// Records `message` as this thread's last error and returns `status`. Never throws: if the message
// cannot be stored (out of memory), the previous one is kept.
int Fail(int status, std::string_view message) noexcept;
// The C status of a core error code.
int StatusOf(ErrorCode code) noexcept;
// Fail() with the code and message of a core error.
int Fail(const Error& error) noexcept;

// Runs the body of an entry point, turning any exception into XPUPERF_ERROR_INTERNAL: no exception
// crosses the C ABI.
template <typename Body>
int Guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(XPUPERF_ERROR_INTERNAL, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return Fail(XPUPERF_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return Fail(XPUPERF_ERROR_INTERNAL, std::string(function) + ": unknown exception");
  }
}

// Copies src into dst[0..size), truncated so that it ends NUL-terminated and never in the middle
// of a UTF-8 sequence. Does nothing when size is 0.
void CopyString(char* dst, size_t size, std::string_view src) noexcept;
template <size_t N>
void CopyString(char (&dst)[N], std::string_view src) noexcept {
  CopyString(dst, N, src);
}

}  // namespace xpuperf::capi

// Shared by the C ABI sources: the session handle, error reporting and string copying. Not
// installed; nothing here is exported from libxpuperf.so.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/session.h"
#include "xpuperf/core/status.h"
#include "xpuperf/xpuperf.h"

namespace xpuperf::capi {

// What a session handle stands for. The xpuperf_session* given to callers is never a pointer to
// it: it is a generation-tagged id into a registry (handles.cpp), so a handle closed twice, used
// after close, or made up is recognised and refused with INVALID_ARGUMENT instead of crashing.
struct SessionState {
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

// Registers a new session and returns its handle.
xpuperf_session* RegisterSession(std::shared_ptr<SessionState> state);
// The session a handle stands for, or null after recording "<function>: ..." as the last error
// (a NULL, closed or unknown handle). The shared_ptr keeps the session alive while it is used,
// even if another thread closes the handle meanwhile.
std::shared_ptr<SessionState> LookupSession(const xpuperf_session* handle, const char* function);
// Removes the handle; the session is destroyed once no call is using it. False (and the last
// error set) for a NULL, closed or unknown handle.
bool UnregisterSession(const xpuperf_session* handle, std::shared_ptr<SessionState>* removed);

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

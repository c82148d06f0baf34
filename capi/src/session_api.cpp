// xpuperf_open/close and the backend and device lists of a session.
#include "capi_internal.h"
#include "options.h"
#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/recorder.h"

using xpuperf::capi::CopyString;
using xpuperf::capi::Fail;
using xpuperf::capi::Guarded;

namespace {

int CheckIndex(const char* function, size_t index, size_t count) {
  if (index < count) return XPUPERF_OK;
  return Fail(XPUPERF_ERROR_INVALID_ARGUMENT, std::string(function) + ": index " +
                                                  std::to_string(index) + " out of range (count " +
                                                  std::to_string(count) + ")");
}

}  // namespace

extern "C" {

XPUPERF_API int xpuperf_open(const char* options, xpuperf_session** out) {
  return Guarded(__func__, [&] {
    if (out == nullptr) return Fail(XPUPERF_ERROR_INVALID_ARGUMENT, "xpuperf_open: out is NULL");
    *out = nullptr;
    auto parsed = xpuperf::capi::ParseSessionOptions(options == nullptr ? "" : options);
    if (!parsed.ok()) return Fail(parsed.error());
    parsed->recorder = &xpuperf::Recorder::Global();
    auto session = xpuperf::Session::Open(xpuperf::BuiltinBackendRegistry(), std::move(*parsed));
    if (!session.ok()) return Fail(session.error());
    auto state = std::make_shared<xpuperf::capi::SessionState>();
    state->session = std::move(session).value();
    *out = xpuperf::capi::RegisterSession(std::move(state));
    return static_cast<int>(XPUPERF_OK);
  });
}

XPUPERF_API void xpuperf_close(xpuperf_session* session) {
  // Destructors of backends may do I/O; whatever they throw stays here.
  (void)Guarded(__func__, [&] {
    // A closed, NULL or made-up handle only sets the last error. The session is destroyed here,
    // or by the last call still using it on another thread.
    std::shared_ptr<xpuperf::capi::SessionState> removed;
    if (session != nullptr && !xpuperf::capi::UnregisterSession(session, &removed)) {
      return static_cast<int>(XPUPERF_ERROR_INVALID_ARGUMENT);
    }
    removed.reset();
    return static_cast<int>(XPUPERF_OK);
  });
}

XPUPERF_API int xpuperf_backend_count(const xpuperf_session* session, size_t* count) {
  return Guarded(__func__, [&] {
    if (count == nullptr) {
      return Fail(XPUPERF_ERROR_INVALID_ARGUMENT, "xpuperf_backend_count: NULL argument");
    }
    const auto state = xpuperf::capi::LookupSession(session, "xpuperf_backend_count");
    if (!state) return static_cast<int>(XPUPERF_ERROR_INVALID_ARGUMENT);
    *count = state->session->backends().size();
    return static_cast<int>(XPUPERF_OK);
  });
}

XPUPERF_API int xpuperf_get_backend_info(const xpuperf_session* session, size_t index,
                                         xpuperf_backend_info* out) {
  return Guarded(__func__, [&] {
    if (out == nullptr) {
      return Fail(XPUPERF_ERROR_INVALID_ARGUMENT, "xpuperf_backend_info: NULL argument");
    }
    const auto state = xpuperf::capi::LookupSession(session, "xpuperf_get_backend_info");
    if (!state) return static_cast<int>(XPUPERF_ERROR_INVALID_ARGUMENT);
    const auto& backends = state->session->backends();
    if (int rc = CheckIndex("xpuperf_get_backend_info", index, backends.size()); rc != XPUPERF_OK)
      return rc;
    const xpuperf::BackendStatus& b = backends[index];
    *out = xpuperf_backend_info{};
    CopyString(out->name, b.name);
    out->available = b.available ? 1 : 0;
    CopyString(out->reason, b.reason);
    return static_cast<int>(XPUPERF_OK);
  });
}

XPUPERF_API int xpuperf_device_count(const xpuperf_session* session, size_t* count) {
  return Guarded(__func__, [&] {
    if (count == nullptr) {
      return Fail(XPUPERF_ERROR_INVALID_ARGUMENT, "xpuperf_device_count: NULL argument");
    }
    const auto state = xpuperf::capi::LookupSession(session, "xpuperf_device_count");
    if (!state) return static_cast<int>(XPUPERF_ERROR_INVALID_ARGUMENT);
    *count = state->session->devices().size();
    return static_cast<int>(XPUPERF_OK);
  });
}

XPUPERF_API int xpuperf_get_device_info(const xpuperf_session* session, size_t index,
                                        xpuperf_device_info* out) {
  return Guarded(__func__, [&] {
    if (out == nullptr) {
      return Fail(XPUPERF_ERROR_INVALID_ARGUMENT, "xpuperf_device_info: NULL argument");
    }
    const auto state = xpuperf::capi::LookupSession(session, "xpuperf_get_device_info");
    if (!state) return static_cast<int>(XPUPERF_ERROR_INVALID_ARGUMENT);
    const auto& devices = state->session->devices();
    if (int rc = CheckIndex("xpuperf_get_device_info", index, devices.size()); rc != XPUPERF_OK)
      return rc;
    const xpuperf::Device& d = devices[index];
    *out = xpuperf_device_info{};
    CopyString(out->backend, d.backend);
    CopyString(out->id, d.id);
    CopyString(out->vendor, d.vendor);
    CopyString(out->model, d.model);
    CopyString(out->uuid, d.uuid);
    CopyString(out->bus_id, d.bus_id);
    out->memory_bytes = d.memory_bytes;
    out->packages = d.topology.packages;
    out->cores = d.topology.cores;
    out->threads = d.topology.threads;
    return static_cast<int>(XPUPERF_OK);
  });
}

}  // extern "C"

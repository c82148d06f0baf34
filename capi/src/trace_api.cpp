// Tracing through the C ABI: the C++ tracer (xpuperf/tracer/tracer.h) behind plain functions.
#include "capi_internal.h"
#include "xpuperf/tracer/tracer.h"

extern "C" {

XPUPERF_API int xpuperf_trace_start(const char* path, int record_ops) {
  return xpuperf::capi::Guarded("xpuperf_trace_start", [&] {
    if (path == nullptr) {
      return xpuperf::capi::Fail(XPUPERF_ERROR_INVALID_ARGUMENT,
                                 "xpuperf_trace_start: path is NULL");
    }
    xpuperf::tracer::Options options;
    options.path = path;
    options.record_op_distribution = record_ops != 0;
    const xpuperf::Status status = xpuperf::tracer::Start(options);
    return status.ok() ? XPUPERF_OK : xpuperf::capi::Fail(status.error());
  });
}

XPUPERF_API int xpuperf_trace_stop(uint64_t* dropped_events) {
  return xpuperf::capi::Guarded("xpuperf_trace_stop", [&] {
    auto summary = xpuperf::tracer::Stop();
    if (!summary.ok()) return xpuperf::capi::Fail(summary.error());
    if (dropped_events != nullptr) *dropped_events = summary->dropped_events;
    return static_cast<int>(XPUPERF_OK);
  });
}

// Recording calls return nothing and never throw (the tracer's functions are noexcept).
XPUPERF_API void xpuperf_trace_begin(const char* name) {
  if (name != nullptr) xpuperf::tracer::BeginRange(name);
}

XPUPERF_API void xpuperf_trace_end(void) { xpuperf::tracer::EndRange(); }

XPUPERF_API void xpuperf_trace_counter(const char* name, double value) {
  if (name != nullptr) xpuperf::tracer::Counter(std::string_view(name), value);
}

}  // extern "C"

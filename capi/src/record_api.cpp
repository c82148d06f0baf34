// In-process recording into Recorder::Global(), which every session of the C ABI merges.
#include "capi_internal.h"
#include "xpuperf/core/recorder.h"

namespace {
// The device of a record: NULL means the host CPU, as in the C++ SDK.
std::string_view DeviceOf(const char* device) { return device == nullptr ? "cpu0" : device; }
}  // namespace

extern "C" {

// These return nothing: a recording call sits in the caller's hot loop and has no useful error to
// report. The only possible failure (out of memory on a thread's first record of a key) drops the
// record.
XPUPERF_API void xpuperf_record_op(const char* op, int64_t duration_ns, const char* device) {
  if (op == nullptr) return;
  try {
    xpuperf::Recorder::Global().RecordOp(op, duration_ns, DeviceOf(device));
  } catch (...) {
  }
}

XPUPERF_API void xpuperf_record_transfer(uint64_t bytes, int64_t latency_ns, const char* device) {
  try {
    xpuperf::Recorder::Global().RecordTransfer(bytes, latency_ns, DeviceOf(device));
  } catch (...) {
  }
}

XPUPERF_API void xpuperf_set_queue_depth(int64_t depth, const char* device) {
  try {
    xpuperf::Recorder::Global().SetQueueDepth(depth, DeviceOf(device));
  } catch (...) {
  }
}

}  // extern "C"

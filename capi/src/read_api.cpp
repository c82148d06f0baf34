// xpuperf_read_metric: one Session::Collect flattened into the caller's array of samples.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "capi_internal.h"
#include "xpuperf/core/metric_catalog.h"

using xpuperf::capi::CopyString;
using xpuperf::capi::Fail;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Labels other than the device, as "key=value,key=value" (the device has its own field).
std::string LabelText(const xpuperf::Labels& labels) {
  std::string text;
  for (const auto& [key, value] : labels.items()) {
    if (key == xpuperf::labels::kDevice) continue;
    if (!text.empty()) text += ',';
    text.append(key).append(1, '=').append(value);
  }
  return text;
}

xpuperf_sample ToCSample(const xpuperf::Reading& reading, const xpuperf::Sample& sample) {
  xpuperf_sample out{};
  const std::string_view device = sample.labels.Get(xpuperf::labels::kDevice);
  CopyString(out.device, device.empty() ? std::string_view(reading.device) : device);
  CopyString(out.labels, LabelText(sample.labels));
  out.timestamp_ns = sample.timestamp_ns;
  out.sum = out.min = out.max = kNaN;
  out.p50 = out.p90 = out.p95 = out.p999 = kNaN;
  if (!sample.is_distribution()) {
    out.value = sample.scalar();
    return out;
  }
  const xpuperf::Distribution& d = sample.distribution();
  out.is_distribution = 1;
  out.count = d.count;
  out.value = d.count > 0 ? d.Mean() : kNaN;
  if (d.count > 0) {
    out.sum = d.sum;
    out.min = d.min;
    out.max = d.max;
  }
  const auto percentile = [&](double q) { return d.Percentile(q).value_or(kNaN); };
  out.p50 = percentile(0.50);
  out.p90 = percentile(0.90);
  out.p95 = percentile(0.95);
  out.p999 = percentile(0.999);
  return out;
}

xpuperf_reading_state StateOf(xpuperf::ReadingState state) {
  switch (state) {
    case xpuperf::ReadingState::kOk:
      return XPUPERF_READING_OK;
    case xpuperf::ReadingState::kUnsupported:
      return XPUPERF_READING_UNSUPPORTED;
    case xpuperf::ReadingState::kNoData:
      return XPUPERF_READING_NO_DATA;
  }
  return XPUPERF_READING_UNSUPPORTED;
}

// When no device reports the metric at all, says which backends could not open and why.
std::string NoDeviceReason(const xpuperf::Session& session, std::string_view metric) {
  std::string reason = "no open backend reports " + std::string(metric);
  std::string closed;
  for (const xpuperf::BackendStatus& b : session.backends()) {
    if (b.available) continue;
    closed += (closed.empty() ? "" : "; ") + b.name + ": " + b.reason;
  }
  return closed.empty() ? reason : reason + " (not available: " + closed + ")";
}

// Reads the metric and flattens the readings: samples of every ok reading, in catalog then device
// order; the state is ok when any device has samples, else the first reading's.
int Collect(xpuperf::capi::SessionState& s, const std::string& metric, const char* device,
            xpuperf::capi::SessionState::PendingRead& out) {
  std::vector<std::string> devices;
  if (device != nullptr) devices.emplace_back(device);
  auto readings = s.session->Collect({metric}, devices);
  if (!readings.ok()) return Fail(readings.error());
  out.metric = metric;
  out.device = device == nullptr ? "" : device;
  for (const xpuperf::Reading& r : *readings) {
    if (r.state != xpuperf::ReadingState::kOk) continue;
    for (const xpuperf::Sample& sample : r.samples) out.samples.push_back(ToCSample(r, sample));
  }
  if (!out.samples.empty()) {
    out.state = XPUPERF_READING_OK;
  } else if (!readings->empty()) {
    const xpuperf::Reading& first = readings->front();
    out.state =
        first.state == xpuperf::ReadingState::kOk ? XPUPERF_READING_NO_DATA : StateOf(first.state);
    out.reason =
        first.device + ": " + (first.reason.empty() ? std::string("no samples") : first.reason);
  } else {
    out.state = XPUPERF_READING_UNSUPPORTED;
    out.reason = NoDeviceReason(*s.session, metric);
  }
  return XPUPERF_OK;
}

}  // namespace

extern "C" {

XPUPERF_API int xpuperf_read_metric(xpuperf_session* session, const char* metric,
                                    const char* device, xpuperf_sample* samples, size_t capacity,
                                    size_t* written, xpuperf_reading_state* state, char* reason,
                                    size_t reason_size) {
  return xpuperf::capi::Guarded(__func__, [&] {
    if (written != nullptr) *written = 0;
    if (state != nullptr) *state = XPUPERF_READING_UNSUPPORTED;
    CopyString(reason, reason_size, "");
    if (session == nullptr || metric == nullptr || written == nullptr ||
        (samples == nullptr && capacity > 0)) {
      return Fail(XPUPERF_ERROR_INVALID_ARGUMENT,
                  "xpuperf_read_metric: session, metric and written must not be NULL, nor samples "
                  "when capacity > 0");
    }
    const auto handle = xpuperf::capi::LookupSession(session, "xpuperf_read_metric");
    if (!handle) return static_cast<int>(XPUPERF_ERROR_INVALID_ARGUMENT);
    xpuperf::capi::SessionState* const s = handle.get();
    const std::string name = metric;
    const std::string device_key = device == nullptr ? "" : device;

    xpuperf::capi::SessionState::PendingRead read;
    if (s->pending && s->pending->metric == name && s->pending->device == device_key) {
      read = std::move(*s->pending);
    } else if (int rc = Collect(*s, name, device, read); rc != XPUPERF_OK) {
      s->pending.reset();
      return rc;
    }
    s->pending.reset();

    const size_t n = read.samples.size();
    for (size_t i = 0; i < n && i < capacity; ++i) samples[i] = read.samples[i];
    *written = n;
    if (state != nullptr) *state = read.state;
    CopyString(reason, reason_size, read.reason);
    if (n > capacity) {
      const std::string message = "xpuperf_read_metric: " + name + " has " + std::to_string(n) +
                                  " samples, the array holds " + std::to_string(capacity) +
                                  "; call again with a larger one to get the same samples";
      s->pending = std::move(read);
      return Fail(XPUPERF_ERROR_BUFFER_TOO_SMALL, message);
    }
    return static_cast<int>(XPUPERF_OK);
  });
}

}  // extern "C"

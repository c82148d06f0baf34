// The XLA devices analysis: per device of an .xplane.pb (and the host, when XLA:CPU ran the ops),
// how busy XLA kept it. window = first op start .. last op end; busy = the union of the op
// intervals (overlapping ops, e.g. async ones, count once); idle = window - busy; busy share =
// busy / window. Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <map>

#include "xla_analysis_util.h"
#include "xpuperf/trace/analysis_registry.h"

namespace xpuperf::trace {
namespace {

struct DeviceTime {
  int64_t first = INT64_MAX, last = INT64_MIN, busy = 0, covered_to = INT64_MIN, ops = 0;
};

AnalysisOutput ComputeXlaDevices(const Trace& trace, const AnalysisContext& context) {
  AnalysisOutput out;
  const int64_t category = internal::CategoryId(trace, kXlaOpsCategory);
  if (category < 0) return out;
  std::map<int, DeviceTime> devices;
  for (const TraceEvent& e : trace.events) {  // in start order: the union grows left to right
    if (e.category != static_cast<uint32_t>(category)) continue;
    DeviceTime& d = devices[e.device];
    d.first = std::min(d.first, e.ts_ns);
    d.last = std::max(d.last, e.end_ns());
    ++d.ops;
    const int64_t from = std::max(e.ts_ns, d.covered_to);
    if (e.end_ns() > from) d.busy += e.end_ns() - from;
    d.covered_to = std::max(d.covered_to, e.end_ns());
  }
  Table table{fmt::format("XLA device time, rank {}: busy = union of op intervals", trace.rank),
              "devices",
              {{"device", "device"},
               {"ops", "ops"},
               {"window", "window_ns"},
               {"busy", "busy_ns"},
               {"idle", "idle_ns"},
               {"busy share", "busy_share"}},
              {}};
  int64_t busy_total = 0, window_total = 0;
  for (const auto& [device, d] : devices) {
    const int64_t window = d.last - d.first;
    busy_total += d.busy;
    window_total += window;
    table.rows.push_back(
        {Cell::Text(internal::XlaDeviceName(device)), Cell::Count(d.ops), Cell::Ns(window),
         Cell::Ns(d.busy), Cell::Ns(window - d.busy),
         Cell::Fraction(window > 0 ? static_cast<double>(d.busy) / static_cast<double>(window)
                                   : 0)});
  }
  out.fields = {{"devices", Cell::Count(static_cast<int64_t>(devices.size()))},
                {"busy_ns", Cell::Ns(busy_total)},
                {"window_ns", Cell::Ns(window_total)}};
  out.tables.push_back(std::move(table));
  return out;
}

}  // namespace

extern const AnalysisDescriptor kXlaDevicesAnalysis = {
    .name = "xla_devices",
    .title = "XLA device busy and idle",
    .json_key = "xla_devices",
    .compute = ComputeXlaDevices,
};

}  // namespace xpuperf::trace

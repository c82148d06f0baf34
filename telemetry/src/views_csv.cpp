// `metrics --format csv`: nvidia-smi's query mode in long form, one row per sample and time.
#include <fmt/format.h>

#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/utc_time.h"
#include "xpuperf/render/csv.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::telemetry {
namespace {

// Every label but the device, "key=value;key=value" (the rows' device column has the device).
std::string LabelsField(const Labels& labels, std::string_view extra = {}) {
  std::string text;
  for (const auto& [key, value] : labels.items()) {
    if (key == labels::kDevice) continue;
    if (!text.empty()) text += ';';
    text += fmt::format("{}={}", key, value);
  }
  if (!extra.empty()) text += (text.empty() ? "" : ";") + std::string(extra);
  return text;
}

void Row(std::string& out, const std::string& stamp, const std::string& host, const Reading& r,
         const std::string& labels, const std::string& value, std::string_view unit,
         std::string_view reason) {
  for (std::string_view field : {std::string_view(stamp), std::string_view(host),
                                 std::string_view(r.device), std::string_view(r.metric)}) {
    render::AppendCsvField(out, field);
    out += ',';
  }
  render::AppendCsvField(out, labels);
  out += ',';
  out += value;
  out += ',';
  render::AppendCsvField(out, unit);
  out += ',';
  out += ReadingStateName(r.state);
  out += ',';
  render::AppendCsvField(out, reason);
  out += '\n';
}

std::string Number(double value) { return fmt::format("{:.10g}", value); }

}  // namespace

std::string MetricsCsvHeader() {
  return "timestamp,host,device,metric,labels,value,unit,state,reason\n";
}

std::string MetricsCsvRows(const MetricsSnapshot& snap) {
  std::string out;
  const std::string stamp = UtcTimestamp(snap.timestamp_ns, 3);
  for (const Reading& r : snap.readings) {
    const MetricInfo* info = FindMetric(r.metric);
    const std::string_view unit = info != nullptr ? info->unit : "";
    if (r.state != ReadingState::kOk) {
      Row(out, stamp, snap.host, r, "", "", unit, r.reason);
      continue;
    }
    for (const Sample& s : r.samples) {
      if (!s.is_distribution()) {
        Row(out, stamp, snap.host, r, LabelsField(s.labels), Number(s.scalar()), unit, "");
        continue;
      }
      // A distribution: its count and percentiles, one row each (stat=…).
      const Distribution& d = s.distribution();
      Row(out, stamp, snap.host, r, LabelsField(s.labels, "stat=count"), fmt::format("{}", d.count),
          "count", "");
      for (auto [name, q] : {std::pair{"p50", 0.5}, std::pair{"p90", 0.9}, std::pair{"p95", 0.95},
                             std::pair{"p999", 0.999}}) {
        const auto v = d.Percentile(q);
        Row(out, stamp, snap.host, r, LabelsField(s.labels, std::string("stat=") + name),
            v ? Number(*v) : "", unit, "");
      }
    }
  }
  return out;
}

std::string WatchHeader(const MetricsSnapshot& snap, int refresh) {
  return fmt::format("=== {} on {} (refresh {}) ===\n", UtcTimestamp(snap.timestamp_ns), snap.host,
                     refresh);
}

}  // namespace xpuperf::telemetry

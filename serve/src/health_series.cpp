#include "xpuperf/serve/health_series.h"

namespace xpuperf::serve {

std::vector<exporter::MetricFamily> HealthFamilies(const health::HealthReport& report,
                                                   const std::string& hostname) {
  exporter::MetricFamily verdicts;
  verdicts.name = "xpuperf_health";
  verdicts.help =
      "Health verdict per device and subsystem: 0 pass, 1 unknown, 2 warn, 3 fail "
      "(docs/HEALTH.md)";
  for (const health::Verdict& v : report.verdicts) {
    Labels labels;
    if (!hostname.empty()) labels.Set("hostname", hostname);
    labels.Set("device", v.device);
    labels.Set("subsystem", health::SubsystemName(v.subsystem));
    labels.Set("status", health::StatusName(v.status));
    labels.Set("code", v.code);
    labels.Set("severity", health::SeverityName(v.severity));
    labels.Set("action", health::ActionName(v.action));
    verdicts.points.push_back({labels, static_cast<double>(health::StatusRank(v.status))});
  }
  exporter::MetricFamily node;
  node.name = "xpuperf_node_healthy";
  node.help = "1 when no health verdict of the node fails, else 0";
  Labels labels;
  if (!hostname.empty()) labels.Set("hostname", hostname);
  node.points.push_back({labels, report.Healthy() ? 1.0 : 0.0});
  return {std::move(verdicts), std::move(node)};
}

}  // namespace xpuperf::serve

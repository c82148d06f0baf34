#include "health_json.h"

#include <nlohmann/json.hpp>

namespace xpuperf::exporter {

std::string HealthJson(const HealthReport& report) {
  nlohmann::json doc;
  doc["status"] = report.healthy ? "ok" : "degraded";
  doc["backends"] = nlohmann::json::array();
  for (const CollectorState& c : report.collectors) {
    nlohmann::json b{{"name", c.backend},
                     {"state", c.up ? "up" : "down"},
                     {"last_duration_seconds", c.last_duration_seconds}};
    b["last_success_timestamp_seconds"] =
        c.last_success_ns > 0 ? nlohmann::json(static_cast<double>(c.last_success_ns) * 1e-9)
                              : nlohmann::json(nullptr);
    if (!c.reason.empty()) b["reason"] = c.reason;
    doc["backends"].push_back(std::move(b));
  }
  for (const BackendStatus& s : report.unavailable) {
    doc["backends"].push_back({{"name", s.name}, {"state", "unavailable"}, {"reason", s.reason}});
  }
  doc["devices"] = nlohmann::json::array();
  for (const DeviceState& d : report.devices) {
    nlohmann::json j{{"id", d.id}, {"backend", d.backend}, {"state", d.up ? "up" : "down"}};
    if (!d.reason.empty()) j["reason"] = d.reason;
    doc["devices"].push_back(std::move(j));
  }
  if (!report.energy.empty()) {
    doc["energy"] = nlohmann::json::array();
    for (const EnergyState& e : report.energy) {
      nlohmann::json j{
          {"device", e.device}, {"labels", e.labels}, {"source", e.source}, {"verdict", e.verdict}};
      if (!e.detail.empty()) j["detail"] = e.detail;
      doc["energy"].push_back(std::move(j));
    }
  }
  return doc.dump(2) + "\n";
}

}  // namespace xpuperf::exporter

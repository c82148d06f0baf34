#include <fmt/format.h>
#include <unistd.h>

#include "xpuperf/core/host_name.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/version.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/text_table.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::telemetry {

using Align = render::TextTable::Align;

namespace {
std::string CacheSummary(const Topology& topology) {
  std::string out;
  for (const CacheLevel& c : topology.caches) {
    if (c.type == "instruction") continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("L{} {}", c.level, FormatBytes(static_cast<double>(c.size_bytes)));
    if (c.instances > 1) out += fmt::format(" x{}", c.instances);
  }
  return out;
}
}  // namespace

std::string RenderDevices(const std::vector<Device>& devices,
                          const std::vector<BackendStatus>& backends) {
  render::TextTable table("Devices", {{"ID"},
                                      {"Backend"},
                                      {"Vendor"},
                                      {"Model"},
                                      {"Memory", Align::kRight},
                                      {"Packages", Align::kRight},
                                      {"Cores", Align::kRight},
                                      {"Threads", Align::kRight},
                                      {"Bus ID"}});
  for (const Device& d : devices) {
    table.AddRow({render::DeviceColumn(d), d.backend, d.vendor, d.model,
                  FormatBytes(static_cast<double>(d.memory_bytes)),
                  std::to_string(d.topology.packages), std::to_string(d.topology.cores),
                  std::to_string(d.topology.threads), d.bus_id.empty() ? "-" : d.bus_id});
  }
  std::string out = table.Render();
  render::TextTable caches("\nCaches",
                           {{"ID"}, {"Topology source"}, {"Caches (per instance x count)"}});
  for (const Device& d : devices) {
    if (!d.topology.caches.empty())
      caches.AddRow({d.id, d.topology.source, CacheSummary(d.topology)});
  }
  if (!caches.empty()) out += caches.Render(120);
  render::TextTable status("\nBackends", {{"Backend"}, {"Status"}});
  for (const BackendStatus& b : backends) {
    status.AddRow({b.name, b.available ? "available" : "not available: " + b.reason});
  }
  if (!status.empty()) out += status.Render(120);
  return out;
}

nlohmann::json DevicesJson(const std::string& host, const std::vector<Device>& devices,
                           const std::vector<BackendStatus>& backends) {
  nlohmann::json out = {
      {"json_schema_version", kJsonSchemaVersion}, {"xpuperf_version", kVersion}, {"host", host}};
  nlohmann::json list = nlohmann::json::array();
  for (const Device& d : devices) list.push_back(ToJson(d));
  out["devices"] = std::move(list);
  nlohmann::json status = nlohmann::json::array();
  for (const BackendStatus& b : backends) {
    nlohmann::json entry = {{"name", b.name}, {"available", b.available}};
    if (!b.available) entry["reason"] = b.reason;
    status.push_back(std::move(entry));
  }
  out["backends"] = std::move(status);
  return out;
}

std::string RenderCatalog() {
  render::TextTable table("Metric catalog",
                          {{"Name"}, {"Unit"}, {"Kind"}, {"Labels"}, {"Description"}});
  for (const MetricInfo& m : MetricCatalog()) {
    table.AddRow({std::string(m.name), std::string(m.unit), std::string(MetricKindName(m.kind)),
                  std::string(m.labels), std::string(m.description)});
  }
  return table.Render(200);
}

nlohmann::json CatalogJson() {
  nlohmann::json out = {{"json_schema_version", kJsonSchemaVersion}, {"xpuperf_version", kVersion}};
  nlohmann::json list = nlohmann::json::array();
  for (const MetricInfo& m : MetricCatalog()) list.push_back(ToJson(m));
  out["metrics"] = std::move(list);
  return out;
}

}  // namespace xpuperf::telemetry

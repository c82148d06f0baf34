#include "xpuperf/core/temperature_sensor.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpuperf {
namespace {

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool IsCpuPackage(std::string_view sensor) {
  return Contains(sensor, "Package id") || Contains(sensor, "Tctl") || Contains(sensor, "Tdie");
}

}  // namespace

int TemperatureSensorRank(std::string_view sensor) {
  if (sensor == "gpu" || sensor == "edge" || sensor == "junction" || sensor == "die") return 0;
  if (IsCpuPackage(sensor)) return 1;
  return 2;
}

std::string TemperatureSensorTitle(std::string_view sensor) {
  if (sensor.empty()) return "temperature";
  if (sensor == "gpu") return "GPU";
  if (sensor == "edge" || sensor == "junction" || sensor == "die") {
    return fmt::format("GPU ({})", sensor);
  }
  if (sensor == "mem" || sensor == "memory") return "memory";
  if (IsCpuPackage(sensor)) return fmt::format("CPU package ({})", sensor);
  return std::string(sensor);
}

void SortTemperatures(std::vector<SensorTemperature>& temperatures) {
  std::stable_sort(temperatures.begin(), temperatures.end(),
                   [](const SensorTemperature& a, const SensorTemperature& b) {
                     const int ra = TemperatureSensorRank(a.sensor);
                     const int rb = TemperatureSensorRank(b.sensor);
                     return ra != rb ? ra < rb : a.sensor < b.sensor;
                   });
}

std::string FormatTemperatures(const std::vector<SensorTemperature>& temperatures) {
  if (temperatures.empty()) return "n/a";
  std::string text;
  for (const SensorTemperature& t : temperatures) {
    text += fmt::format("{}{} {:.1f} C", text.empty() ? "" : ", ", TemperatureSensorTitle(t.sensor),
                        t.celsius);
  }
  return text;
}

}  // namespace xpuperf

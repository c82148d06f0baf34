// Which temperature sensor is which, for every view that shows temperatures (`top`, `metrics`, the
// Grafana dashboard): the device's core sensor first and titled "GPU" (or "CPU package"), every
// other sensor with its own name. An H200's HBM at 71 °C is never shown as the GPU's temperature.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xpuperf {

// 0: the GPU core sensor ("gpu" on NVIDIA and Intel, "edge" on AMD, "junction"/"die" where a
// backend names it so); 1: a CPU package sensor (hwmon "Package id N", k10temp "Tctl"/"Tdie");
// 2: everything else (memory, hotspot, voltage regulators, drives).
int TemperatureSensorRank(std::string_view sensor);

// The sensor as a person reads it: "gpu" -> "GPU", "edge" -> "GPU (edge)", "junction" -> "GPU
// (junction)", "mem"/"memory" -> "memory", a CPU package sensor -> "CPU package (<sensor>)",
// an empty label -> "temperature"; any other name unchanged.
std::string TemperatureSensorTitle(std::string_view sensor);

struct SensorTemperature {
  std::string sensor;  // the backend's label
  double celsius = 0;
};

// Sorted for display: by rank, then by sensor name (stable for equal names).
void SortTemperatures(std::vector<SensorTemperature>& temperatures);

// "GPU 64.0 C, memory 71.0 C" (the unit as the tables write it); "n/a" when empty.
std::string FormatTemperatures(const std::vector<SensorTemperature>& temperatures);

}  // namespace xpuperf

#include "xpuperf/core/temperature_sensor.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(TemperatureSensorTest, TheCoreSensorComesFirstAndIsTitledGpu) {
  std::vector<SensorTemperature> h200 = {{"memory", 71}, {"gpu", 64}};
  SortTemperatures(h200);
  EXPECT_EQ(FormatTemperatures(h200), "GPU 64.0 C, memory 71.0 C");
  std::vector<SensorTemperature> mi300 = {{"hotspot", 80}, {"mem", 70}, {"edge", 60}};
  SortTemperatures(mi300);
  EXPECT_EQ(FormatTemperatures(mi300), "GPU (edge) 60.0 C, hotspot 80.0 C, memory 70.0 C");
  std::vector<SensorTemperature> cpu = {{"nvme/Composite", 40}, {"k10temp/Tctl", 55}};
  SortTemperatures(cpu);
  EXPECT_EQ(FormatTemperatures(cpu), "CPU package (k10temp/Tctl) 55.0 C, nvme/Composite 40.0 C");
  EXPECT_EQ(FormatTemperatures({}), "n/a");
  EXPECT_EQ(TemperatureSensorTitle(""), "temperature");
}

}  // namespace
}  // namespace xpuperf

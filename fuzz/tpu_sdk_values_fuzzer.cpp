// libFuzzer target for the TPU backend's reading of libtpu's SDK values: each input line is one
// list item libtpu's data() could return; the first byte picks the SDK metric it is read as. Every
// parser and the mapping onto the catalog must return readings or skip the item, never crash or
// hang. Build and run: scripts/fuzz.sh [SECONDS] tpu_sdk
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sdk_readings.h"
#include "sdk_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xpuperf;
  if (size == 0) return 0;
  std::vector<std::string> items;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (!text.empty() && items.size() < 64) {
    const size_t newline = text.find('\n');
    items.emplace_back(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  (void)tpu::ParseIndexedNumbers(items);
  for (const tpu::NamedValue& v : tpu::ParseNamedNumbers(items)) (void)tpu::CoreNumber(v.name);
  (void)tpu::ParseIdScores(items);
  (void)tpu::ParseSummaryRows(items, true);
  (void)tpu::ParseSummaryRows(items, false);

  const auto& mappings = tpu::SdkMappings();
  const tpu::SdkMapping& mapping = mappings[data[0] % mappings.size()];
  auto snapshot = std::make_shared<tpu::SdkSnapshot>();
  snapshot->libtpu_version = "fuzz";
  snapshot->supported = {std::string(mapping.sdk)};
  snapshot->values[std::string(mapping.sdk)].data = items;
  tpu::SdkView view{snapshot, ""};
  std::vector<Device> devices(1 + data[0] % 4);
  for (size_t i = 0; i < devices.size(); ++i) devices[i].id = "tpu" + std::to_string(i);
  (void)tpu::SdkReadings(mapping.catalog, view, devices, 1 + (data[0] >> 4) % 2, 0);
  return 0;
}

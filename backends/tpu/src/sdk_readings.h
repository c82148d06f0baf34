// Internal to the TPU backend: libtpu's SDK metrics -> catalog readings (docs/METRICS.md, "libtpu's
// monitoring SDK"). The SDK numbers chips and cores of the host from 0, in libtpu's order, which
// is the order tpu-info prints; xpuperf's devices are in PCI order, as libtpu enumerates them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sdk_source.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"

namespace xpuperf::tpu {

// One collection's view of the SDK: its answer, or why there is none.
struct SdkView {
  std::shared_ptr<const SdkSnapshot> snapshot;
  std::string reason;  // when snapshot is null
  // The metric's values; nullptr with *why (and *no_data: true when libtpu listed the metric but
  // gave no values) when it has none.
  const SdkMetric* Find(std::string_view name, std::string* why, bool* no_data) const;
};

// How each SDK metric lands in the catalog; `catalog` is empty for metrics xpuperf shows only as
// libtpu gives them (`metrics --tpu-sdk`), with `note` saying why.
struct SdkMapping {
  std::string_view sdk;
  std::string_view catalog;
  std::string_view note;
};
const std::vector<SdkMapping>& SdkMappings();
const SdkMapping* FindSdkMapping(std::string_view sdk_name);

// Readings of one catalog metric from the SDK, one per device (unsupported/no data with the
// reason when the SDK has none), source "sdk". nullopt when no SDK metric maps to it.
std::optional<std::vector<Reading>> SdkReadings(std::string_view catalog, const SdkView& view,
                                                const std::vector<Device>& devices,
                                                int cores_per_chip, int64_t wall_ns);

}  // namespace xpuperf::tpu

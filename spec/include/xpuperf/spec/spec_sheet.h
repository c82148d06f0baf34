// Spec sheets: what a device's datasheet promises, for the benchmark spec check and the roofline.
// One YAML file per device under spec/sheets (see tpu-v5e.yaml for the format). Values are in base
// units: FLOP/s, bytes, bytes/s.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::spec {

struct LinkBandwidth {
  double tx_bytes_per_second = 0;  // leaving the device
  double rx_bytes_per_second = 0;  // arriving at the device
};

struct SpecSheet {
  std::string device;  // matches Device::model, e.g. "TPU v5e"
  std::string vendor;  // "Google"
  std::string source;  // where the numbers come from: document title and URL
  // Dense peak per precision ("bf16", "fp8", "int8", "fp32"), FLOP/s (integer ops/s for int8).
  std::map<std::string, double> peak_flops_per_second;
  double memory_bytes = 0;                       // device memory capacity
  double memory_bandwidth_bytes_per_second = 0;  // device memory bandwidth
  // Host link (PCIe) per direction; absent when the datasheet does not give it.
  std::optional<LinkBandwidth> host_link;
  // Chip-to-chip network (ICI, NVLink) per direction, per chip; absent when not given.
  std::optional<LinkBandwidth> network_link;
  std::string notes;
  std::string file;  // the file it was loaded from

  // peak / memory bandwidth for `precision`, FLOP per byte; nullopt when the precision is absent.
  std::optional<double> RidgePoint(std::string_view precision) const;
};

// Parses one sheet. Errors are kParse and name `file_name` and the line: malformed YAML, a
// missing required field (device, vendor, source, peak_flops_per_second with at least one
// entry, memory.bytes, memory.bandwidth_bytes_per_second), or a negative / non-numeric value.
Result<SpecSheet> ParseSpecSheet(std::string_view yaml_text, std::string_view file_name);
// kNotFound / kIo when the file cannot be read, else as ParseSpecSheet.
Result<SpecSheet> LoadSpecSheet(const std::string& path);
// Every *.yaml in `dir`, sorted by file name; the first bad file is the error.
Result<std::vector<SpecSheet>> LoadSpecSheets(const std::string& dir);

// The sheets shipped with xpuperf (spec/sheets in the source tree).
std::string ShippedSpecSheetDir();

// The sheet whose device equals `model` (case-insensitive), or nullptr.
const SpecSheet* FindSpecSheet(const std::vector<SpecSheet>& sheets, std::string_view model);

}  // namespace xpuperf::spec

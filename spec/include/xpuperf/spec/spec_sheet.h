// Spec sheets: what a device's datasheet promises, for the benchmark spec check and the roofline.
// One YAML file per device under spec/sheets (see tpu-v5e.yaml and nvidia-h100-sxm.yaml for the
// format); the local CPU's sheet is computed instead (xpuperf/analysis/cpu_spec_sheet.h). Values
// are in base units: FLOP/s, bytes, bytes/s.
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
  std::string name;                // "PCIe Gen5 x16", "NVLink 4 (18 links)"; may be empty
  std::string source;              // where the figure comes from; the sheet's source when not given
};

struct SpecSheet {
  std::string device;  // matches Device::model, e.g. "TPU v5e"
  std::string vendor;  // "Google"
  std::string source;  // where the numbers come from: document title and URL
  // Other names the device reports as its model ("NVIDIA H100 80GB HBM3" for "NVIDIA H100 SXM").
  std::vector<std::string> aliases;
  // Dense peak per precision ("fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp8",
  // "int8"), FLOP/s (integer ops/s for int8). "<p>_tensor" is the matrix-unit rate of precision p
  // where the datasheet gives it apart from the vector rate.
  std::map<std::string, double> peak_flops_per_second;
  // Where each peak comes from (YAML: peak_flops_source, else source; computed sheets: the
  // factors).
  std::map<std::string, std::string> peak_sources;
  double memory_bytes = 0;                       // device memory capacity
  double memory_bandwidth_bytes_per_second = 0;  // device memory bandwidth; 0 = unknown
  std::string memory_type;                       // "HBM3e", "DDR4"; may be empty
  std::string memory_source;  // where the bandwidth comes from (memory.source, else source)
  // Why the bandwidth is unknown (computed sheets only), e.g. "no SMBIOS memory device table".
  std::string memory_unknown_reason;
  // Host link (PCIe) per direction; absent when the datasheet does not give it.
  std::optional<LinkBandwidth> host_link;
  // Chip-to-chip network (ICI, NVLink) per direction, per chip; absent when not given.
  std::optional<LinkBandwidth> network_link;
  std::string notes;
  std::string file;       // the file it was loaded from; empty for a computed sheet
  bool computed = false;  // derived from this machine rather than read from a datasheet

  // peak / memory bandwidth for `precision`, FLOP per byte; nullopt when the precision is absent.
  std::optional<double> RidgePoint(std::string_view precision) const;
};

// Parses one sheet. Errors are kParse and name `file_name` and the line: malformed YAML, a
// missing required field (device, vendor, source, peak_flops_per_second with at least one
// entry, memory.bytes, memory.bandwidth_bytes_per_second), a negative / non-numeric value, or an
// optional field of the wrong shape (aliases: a list of text; peak_flops_source, memory.type,
// memory.source, <link>.name, <link>.source: text).
Result<SpecSheet> ParseSpecSheet(std::string_view yaml_text, std::string_view file_name);
// kNotFound / kIo when the file cannot be read, else as ParseSpecSheet.
Result<SpecSheet> LoadSpecSheet(const std::string& path);
// Every *.yaml in `dir`, sorted by file name; the first bad file is the error.
Result<std::vector<SpecSheet>> LoadSpecSheets(const std::string& dir);

// The sheets shipped with xpuperf (spec/sheets in the source tree).
std::string ShippedSpecSheetDir();

// The sheet whose device or one of whose aliases equals `model` (case-insensitive), or nullptr.
const SpecSheet* FindSpecSheet(const std::vector<SpecSheet>& sheets, std::string_view model);

}  // namespace xpuperf::spec

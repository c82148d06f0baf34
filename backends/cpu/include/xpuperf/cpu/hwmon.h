// hwmon sensors: /sys/class/hwmon/hwmonN/{name, temp*_input, temp*_label, power*_input,
// power*_average, energy*_input}. Units: temperature in m°C, power in µW, energy in µJ.
// World-readable, unlike RAPL.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

enum class HwmonChannelKind { kTemperature, kPower, kEnergy };

struct HwmonChannel {
  HwmonChannelKind kind = HwmonChannelKind::kTemperature;
  int index = 0;      // N of tempN_input
  std::string file;   // "temp1_input", "power1_average", "energy1_input"
  std::string label;  // contents of tempN_label etc.; "tempN" / "powerN" / "energyN" if none
};

struct HwmonChip {
  std::string id;    // "hwmon0"
  std::string path;  // the directory, root included
  std::string name;  // contents of "name" ("coretemp", "k10temp"); the id when missing
  std::vector<HwmonChannel> channels;
};

// The channels named by a chip directory's file names, without labels (label = "tempN" etc.).
// Power prefers powerN_input (instantaneous) over powerN_average for the same N.
std::vector<HwmonChannel> ParseHwmonChannelFiles(const std::vector<std::string>& file_names);

// Every chip under root/sys/class/hwmon with its channels and labels; empty when there is none.
std::vector<HwmonChip> ListHwmonChips(const std::string& root);

// The value of a channel in its raw unit (m°C, µW or µJ); kParse when the file is not an integer.
Result<int64_t> ReadHwmonChannel(const HwmonChip& chip, const HwmonChannel& channel);

}  // namespace xpuperf::cpu

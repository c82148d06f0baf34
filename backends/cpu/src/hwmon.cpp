#include "xpuperf/cpu/hwmon.h"

#include <algorithm>
#include <map>
#include <utility>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

struct FilePattern {
  std::string_view prefix;  // "temp"
  std::string_view suffix;  // "_input"
  HwmonChannelKind kind;
  int preference;  // lower wins when two files describe the same channel
};

constexpr FilePattern kPatterns[] = {
    {"temp", "_input", HwmonChannelKind::kTemperature, 0},
    {"power", "_input", HwmonChannelKind::kPower, 0},
    {"power", "_average", HwmonChannelKind::kPower, 1},
    {"energy", "_input", HwmonChannelKind::kEnergy, 0},
};

std::string_view KindPrefix(HwmonChannelKind kind) {
  switch (kind) {
    case HwmonChannelKind::kTemperature:
      return "temp";
    case HwmonChannelKind::kPower:
      return "power";
    case HwmonChannelKind::kEnergy:
      return "energy";
  }
  return "";
}

}  // namespace

std::vector<HwmonChannel> ParseHwmonChannelFiles(const std::vector<std::string>& file_names) {
  // (kind, index) -> (preference, channel)
  std::map<std::pair<HwmonChannelKind, int>, std::pair<int, HwmonChannel>> best;
  for (const std::string& file : file_names) {
    for (const FilePattern& pattern : kPatterns) {
      std::string_view name = file;
      if (!name.ends_with(pattern.suffix)) continue;
      name.remove_suffix(pattern.suffix.size());
      std::optional<int> index = ParseIndexedName(name, pattern.prefix);
      if (!index) continue;
      HwmonChannel channel{pattern.kind, *index, file,
                           std::string(pattern.prefix) + std::to_string(*index)};
      auto key = std::pair{pattern.kind, *index};
      auto it = best.find(key);
      if (it == best.end() || pattern.preference < it->second.first) {
        best[key] = {pattern.preference, std::move(channel)};
      }
    }
  }
  std::vector<HwmonChannel> channels;
  channels.reserve(best.size());
  for (auto& [key, entry] : best) channels.push_back(std::move(entry.second));
  return channels;
}

std::vector<HwmonChip> ListHwmonChips(const std::string& root) {
  std::vector<HwmonChip> chips;
  const std::string base = JoinRoot(root, "/sys/class/hwmon");
  Result<std::vector<std::string>> entries = ListDirectory(base);
  if (!entries.ok()) return chips;
  for (const std::string& id : *entries) {
    if (!ParseIndexedName(id, "hwmon")) continue;
    HwmonChip chip;
    chip.id = id;
    chip.path = Concat(base, "/", id);
    Result<std::vector<std::string>> files = ListDirectory(chip.path);
    if (!files.ok()) continue;
    Result<std::string> name = ReadTrimmedFile(chip.path + "/name");
    chip.name = name.ok() && !name->empty() ? *name : id;
    chip.channels = ParseHwmonChannelFiles(*files);
    for (HwmonChannel& channel : chip.channels) {
      const std::string label_file =
          std::string(KindPrefix(channel.kind)) + std::to_string(channel.index) + "_label";
      Result<std::string> label = ReadTrimmedFile(chip.path + "/" + label_file);
      if (label.ok() && !label->empty()) channel.label = *label;
    }
    chips.push_back(std::move(chip));
  }
  return chips;
}

Result<int64_t> ReadHwmonChannel(const HwmonChip& chip, const HwmonChannel& channel) {
  return ReadSignedFile(chip.path + "/" + channel.file);
}

}  // namespace xpuperf::cpu

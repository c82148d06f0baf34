#include "xpuperf/drm/drm_cards.h"

#include <algorithm>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::drm {
namespace {

// The value of KEY=value in a uevent file; empty when absent.
std::string UeventValue(std::string_view uevent, std::string_view key) {
  for (std::string_view line : SplitLines(uevent)) {
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == '=') {
      return std::string(TrimWhitespace(line.substr(key.size() + 1)));
    }
  }
  return {};
}

uint32_t ReadHexFile(const std::string& path) {
  uint32_t value = 0;
  auto text = ReadTrimmedFile(path);
  if (text.ok()) ParseHexId(*text, &value);
  return value;
}

std::string FindHwmon(const std::string& device_dir) {
  auto entries = ListDirectory(device_dir + "/hwmon");
  if (!entries.ok()) return {};
  for (const std::string& entry : *entries) {
    if (ParseIndexedName(entry, "hwmon")) return Concat(device_dir, "/hwmon/", entry);
  }
  return {};
}

}  // namespace

bool ParseHexId(std::string_view text, uint32_t* out) {
  text = TrimWhitespace(text);
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty() || text.size() > 8) return false;
  uint32_t value = 0;
  for (char c : text) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  *out = value;
  return true;
}

std::vector<DrmCard> ListDrmCards(const std::string& root,
                                  const std::vector<std::string>& drivers) {
  std::vector<DrmCard> cards;
  const std::string class_dir = JoinRoot(root, "/sys/class/drm");
  auto entries = ListDirectory(class_dir);
  if (!entries.ok()) return cards;
  for (const std::string& entry : *entries) {
    const std::optional<int> minor = ParseIndexedName(entry, "card");
    if (!minor) continue;  // card0-DP-1, renderD128, version
    DrmCard card;
    card.name = entry;
    card.minor = *minor;
    card.card_dir = Concat(class_dir, "/", entry);
    card.device_dir = card.card_dir + "/device";
    auto uevent = ReadFileToString(card.device_dir + "/uevent");
    if (!uevent.ok()) continue;
    card.driver = UeventValue(*uevent, "DRIVER");
    if (std::find(drivers.begin(), drivers.end(), card.driver) == drivers.end()) continue;
    card.pci_slot = UeventValue(*uevent, "PCI_SLOT_NAME");
    card.vendor_id = ReadHexFile(card.device_dir + "/vendor");
    card.device_id = ReadHexFile(card.device_dir + "/device");
    card.revision = ReadHexFile(card.device_dir + "/revision");
    card.subsystem_device_id = ReadHexFile(card.device_dir + "/subsystem_device");
    card.hwmon_dir = FindHwmon(card.device_dir);
    cards.push_back(std::move(card));
  }
  return cards;
}

}  // namespace xpuperf::drm

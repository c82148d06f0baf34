#include "intel_sysfs.h"

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::intel {
namespace {

void AddI915Gts(const drm::DrmCard& card, std::vector<IntelGt>& out) {
  const std::string gt_root = card.card_dir + "/gt";
  auto entries = ListDirectory(gt_root);
  if (entries.ok()) {
    for (const std::string& entry : *entries) {
      const auto id = ParseIndexedName(entry, "gt");
      if (!id) continue;
      const std::string dir = Concat(gt_root, "/", entry);
      IntelGt gt;
      gt.id = *id;
      gt.act_freq_file = dir + "/rps_act_freq_mhz";
      gt.max_freq_file = dir + "/rps_max_freq_mhz";
      gt.throttle_dir = dir;
      gt.throttle_prefix = "throttle_reason_";
      gt.status_file = dir + "/throttle_reason_status";
      out.push_back(std::move(gt));
    }
  }
  if (out.empty() && PathExists(card.card_dir + "/gt_act_freq_mhz")) {
    IntelGt gt;  // kernels before the per-GT directories (5.x)
    gt.act_freq_file = card.card_dir + "/gt_act_freq_mhz";
    gt.max_freq_file = card.card_dir + "/gt_max_freq_mhz";
    out.push_back(std::move(gt));
  }
}

void AddXeGts(const drm::DrmCard& card, std::vector<IntelGt>& out) {
  auto tiles = ListDirectory(card.device_dir);
  if (!tiles.ok()) return;
  for (const std::string& tile : *tiles) {
    if (!ParseIndexedName(tile, "tile")) continue;
    const std::string tile_dir = card.device_dir + "/" + tile;
    auto gts = ListDirectory(tile_dir);
    if (!gts.ok()) continue;
    for (const std::string& entry : *gts) {
      const auto id = ParseIndexedName(entry, "gt");
      if (!id) continue;
      const std::string freq = Concat(tile_dir, "/", entry, "/freq0");
      IntelGt gt;
      gt.id = *id;
      gt.act_freq_file = freq + "/act_freq";
      gt.max_freq_file = freq + "/max_freq";
      gt.throttle_dir = freq + "/throttle";
      gt.throttle_prefix = "reason_";
      gt.status_file = freq + "/throttle/status";
      out.push_back(std::move(gt));
    }
  }
}

}  // namespace

std::vector<IntelGt> ListIntelGts(const drm::DrmCard& card) {
  std::vector<IntelGt> gts;
  if (card.driver == "xe") {
    AddXeGts(card, gts);
  } else {
    AddI915Gts(card, gts);
  }
  return gts;
}

std::string_view IntelModelName(uint32_t device_id) {
  // From the public PCI id database (pci.ids).
  struct Entry {
    uint32_t id;
    std::string_view name;
  };
  static constexpr Entry kModels[] = {
      {0x56a0, "Intel Arc A770"},
      {0x56a1, "Intel Arc A750"},
      {0x56c0, "Intel Data Center GPU Flex 170"},
      {0x56c1, "Intel Data Center GPU Flex 140"},
      {0x0bd5, "Intel Data Center GPU Max 1550"},
      {0x0bda, "Intel Data Center GPU Max 1100"},
      {0xe20b, "Intel Arc B580"},
      {0xe20c, "Intel Arc B570"},
  };
  for (const Entry& e : kModels) {
    if (e.id == device_id) return e.name;
  }
  return {};
}

}  // namespace xpuperf::intel

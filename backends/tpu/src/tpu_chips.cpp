#include "tpu_chips.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::tpu {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

struct KnownChip {
  uint16_t device_id;
  uint16_t subsystem_device_id;  // 0: any
  ChipGeneration generation;
};

// PCI ids and per-chip facts from shared/reference/tpu.md section 5 (HBM in GiB, cores per chip).
constexpr std::array kKnownChips = {
    KnownChip{0x0027, 0x004e, {"v2", 2, 8 * kGiB, false}},
    KnownChip{0x0027, 0x004f, {"v3", 2, 16 * kGiB, false}},
    KnownChip{0x005e, 0, {"v4", 1, 32 * kGiB, false}},
    KnownChip{0x0063, 0, {"v5e", 1, 16 * kGiB, true}},
    KnownChip{0x0062, 0, {"v5p", 1, 95 * kGiB, true}},
    KnownChip{0x006f, 0, {"v6e", 1, 32 * kGiB, true}},
    KnownChip{0x0076, 0, {"7x", 2, 192 * kGiB, true}},
};

// sysfs ids are "0x1ae0\n".
std::optional<uint16_t> ReadHexId(const std::string& path) {
  auto text = ReadTrimmedFile(path);
  if (!text.ok()) return std::nullopt;
  std::string_view s = *text;
  if (s.starts_with("0x")) s.remove_prefix(2);
  if (s.empty() || s.size() > 4) return std::nullopt;
  unsigned value = 0;
  for (char c : s) {
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<unsigned>(digit);
  }
  return static_cast<uint16_t>(value);
}

// The final path component of a symlink's target ("../../kernel/iommu_groups/12" -> "12").
std::string LinkBasename(const std::string& path) {
  std::array<char, 4096> buffer{};
  ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size() - 1);
  if (n <= 0) return {};
  std::string_view target(buffer.data(), static_cast<size_t>(n));
  auto slash = target.find_last_of('/');
  return std::string(slash == std::string_view::npos ? target : target.substr(slash + 1));
}

// v4 and older: the accel class device under the PCI function ("accel/accel0"); newer chips are
// passed to user space through VFIO, so the node is named after the IOMMU group.
std::string FindDeviceNode(std::string_view root, const std::string& function_dir,
                           const ChipGeneration& generation) {
  if (generation.uses_vfio) {
    std::string group = LinkBasename(function_dir + "/iommu_group");
    return group.empty() ? std::string() : "/dev/vfio/" + group;
  }
  auto entries = ListDirectory(function_dir + "/accel");
  if (entries.ok()) {
    for (const std::string& name : *entries) {
      if (ParseIndexedName(name, "accel")) return "/dev/" + name;
    }
  }
  return {};
}

}  // namespace

std::optional<ChipGeneration> LookupChipGeneration(uint16_t device_id,
                                                   uint16_t subsystem_device_id) {
  for (const KnownChip& chip : kKnownChips) {
    if (chip.device_id != device_id) continue;
    if (chip.subsystem_device_id != 0 && chip.subsystem_device_id != subsystem_device_id) continue;
    return chip.generation;
  }
  return std::nullopt;
}

Result<std::vector<TpuChip>> DiscoverTpuChips(std::string_view root) {
  const std::string pci_dir = JoinRoot(root, "/sys/bus/pci/devices");
  XPUPERF_ASSIGN_OR_RETURN(auto addresses, ListDirectory(pci_dir));
  std::sort(addresses.begin(), addresses.end());
  // Keyed by "domain:bus:device" (the address without ".function"), in bus order.
  std::map<std::string, TpuChip> chips;
  for (const std::string& address : addresses) {
    const std::string dir = Concat(pci_dir, "/", address);
    if (ReadHexId(dir + "/vendor") != kGooglePciVendorId) continue;
    auto device_id = ReadHexId(dir + "/device");
    if (!device_id) continue;
    auto generation =
        LookupChipGeneration(*device_id, ReadHexId(dir + "/subsystem_device").value_or(0));
    if (!generation) continue;  // another Google PCI function (not a TPU)
    const std::string base = address.substr(0, address.find_last_of('.'));
    TpuChip& chip = chips[base];
    if (chip.functions.empty()) {
      chip.bus_id = address;
      chip.generation = *generation;
      chip.device_node = FindDeviceNode(root, dir, *generation);
    }
    chip.functions.push_back(address);
  }
  std::vector<TpuChip> out;
  for (auto& [base, chip] : chips) {
    chip.index = static_cast<int>(out.size());
    if (!chip.device_node.empty()) chip.owner_pids = FindDeviceOwners(root, chip.device_node);
    out.push_back(std::move(chip));
  }
  return out;
}

std::vector<int> FindDeviceOwners(std::string_view root, std::string_view device_node) {
  std::vector<int> pids;
  auto entries = ListDirectory(JoinRoot(root, "/proc"));
  if (!entries.ok()) return pids;
  for (const std::string& entry : *entries) {
    auto pid = ParseSigned(entry);
    if (!pid || *pid <= 0) continue;
    const std::string fd_dir = JoinRoot(root, "/proc/" + entry + "/fd");
    auto fds = ListDirectory(fd_dir);
    if (!fds.ok()) continue;
    for (const std::string& fd : *fds) {
      std::array<char, 4096> buffer{};
      const std::string link = Concat(fd_dir, "/", fd);
      ssize_t n = ::readlink(link.c_str(), buffer.data(), buffer.size() - 1);
      if (n > 0 && std::string_view(buffer.data(), static_cast<size_t>(n)) == device_node) {
        pids.push_back(static_cast<int>(*pid));
        break;
      }
    }
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace xpuperf::tpu

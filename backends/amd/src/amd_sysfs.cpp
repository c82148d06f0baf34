#include "xpuperf/amd/amd_sysfs.h"

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::amd {

std::optional<RasCounts> ParseRasErrorCount(std::string_view text) {
  RasCounts counts;
  bool have_ue = false, have_ce = false;
  for (std::string_view line : SplitLines(text)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = TrimWhitespace(line.substr(0, colon));
    const std::optional<uint64_t> value = ParseUnsigned(TrimWhitespace(line.substr(colon + 1)));
    if (!value) return std::nullopt;
    if (key == "ue") {
      counts.uncorrectable = *value;
      have_ue = true;
    } else if (key == "ce") {
      counts.correctable = *value;
      have_ce = true;
    } else if (key == "de") {
      counts.deferred = *value;
    }
  }
  if (!have_ue || !have_ce) return std::nullopt;
  return counts;
}

namespace {

// "1: 2100Mhz *" → 2100.
std::optional<double> DpmLevelMhz(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view rest = TrimWhitespace(line.substr(colon + 1));
  const size_t unit = rest.find_first_not_of("0123456789");
  if (unit == 0 || unit == std::string_view::npos) return std::nullopt;
  const std::string_view tail = rest.substr(unit);
  if (!tail.starts_with("Mhz") && !tail.starts_with("MHz")) return std::nullopt;
  const std::optional<uint64_t> mhz = ParseUnsigned(rest.substr(0, unit));
  if (!mhz) return std::nullopt;
  return static_cast<double>(*mhz);
}

}  // namespace

std::optional<double> ParseCurrentDpmLevelMhz(std::string_view text) {
  for (std::string_view line : SplitLines(text)) {
    if (line.find('*') != std::string_view::npos) return DpmLevelMhz(line);
  }
  return std::nullopt;
}

std::optional<double> ParseHighestDpmLevelMhz(std::string_view text) {
  std::optional<double> highest;
  for (std::string_view line : SplitLines(text)) {
    if (auto mhz = DpmLevelMhz(line); mhz && (!highest || *mhz > *highest)) highest = mhz;
  }
  return highest;
}

std::string_view AmdModelName(uint32_t device_id) {
  // From the public PCI id database (pci.ids); only parts people run AI work on.
  struct Entry {
    uint32_t id;
    std::string_view name;
  };
  static constexpr Entry kModels[] = {
      {0x738c, "AMD Instinct MI100"},         {0x740c, "AMD Instinct MI250X/MI250"},
      {0x740f, "AMD Instinct MI210"},         {0x74a0, "AMD Instinct MI300A"},
      {0x74a1, "AMD Instinct MI300X"},        {0x73bf, "AMD Radeon RX 6800/6800 XT/6900 XT"},
      {0x73df, "AMD Radeon RX 6700/6700 XT"}, {0x744c, "AMD Radeon RX 7900 XT/7900 XTX"},
      {0x7448, "AMD Radeon PRO W7900"},       {0x747e, "AMD Radeon RX 7800 XT/7700 XT"},
  };
  for (const Entry& e : kModels) {
    if (e.id == device_id) return e.name;
  }
  return {};
}

}  // namespace xpuperf::amd

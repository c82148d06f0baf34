#include "xpuperf/drm/fdinfo.h"

#include <limits>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::drm {
namespace {

// "123 ns" -> 123 (the unit is optional; anything else is malformed).
std::optional<uint64_t> ParseNanoseconds(std::string_view text) {
  const auto fields = SplitFields(text);
  if (fields.empty() || fields.size() > 2) return std::nullopt;
  if (fields.size() == 2 && fields[1] != "ns") return std::nullopt;
  return ParseUnsigned(fields[0]);
}

bool StripPrefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

bool IsMemoryKey(std::string_view key) {
  return key.starts_with("memory-") || key.starts_with("total-") || key.starts_with("resident-") ||
         key.starts_with("shared-") || key.starts_with("active-") ||
         key.starts_with("purgeable-") || key.starts_with("evicted-") ||
         key.starts_with("requested-");
}

void ParseLine(std::string_view key, std::string_view value, DrmClientUsage& usage) {
  if (key == "drm-driver") {
    usage.driver = std::string(value);
    return;
  }
  if (key == "drm-pdev") {
    usage.pdev = std::string(value);
    return;
  }
  if (key == "drm-client-id") {
    usage.client_id = ParseUnsigned(value);
    return;
  }
  std::string_view rest = key;
  if (StripPrefix(rest, "drm-engine-")) {
    // drm-engine-capacity-<name> is an engine count, not a time.
    if (StripPrefix(rest, "capacity-")) {
      if (auto n = ParseUnsigned(value); n && *n > 0 && !rest.empty()) {
        usage.engine_capacity[std::string(rest)] = *n;
      }
      return;
    }
    if (rest.empty()) return;
    if (auto ns = ParseNanoseconds(value)) usage.engine_busy_ns[std::string(rest)] = *ns;
    return;
  }
  if (StripPrefix(rest, "drm-total-cycles-")) {
    if (auto n = ParseUnsigned(value); n && !rest.empty())
      usage.total_cycles[std::string(rest)] = *n;
    return;
  }
  if (StripPrefix(rest, "drm-cycles-")) {
    if (auto n = ParseUnsigned(value); n && !rest.empty())
      usage.engine_cycles[std::string(rest)] = *n;
    return;
  }
  if (StripPrefix(rest, "drm-") || StripPrefix(rest, "amd-")) {
    if (!IsMemoryKey(rest)) return;
    if (auto bytes = ParseMemoryAmount(value)) usage.memory_bytes[std::string(rest)] = *bytes;
    return;
  }
  // The amdgpu format of kernels before 5.19.
  if (key == "pdev") {
    usage.pdev = std::string(value);
    usage.legacy_format = true;
  } else if (key == "vram mem" || key == "gtt mem" || key == "cpu mem") {
    if (auto bytes = ParseMemoryAmount(value)) {
      usage.memory_bytes["memory-" + std::string(key.substr(0, key.find(' ')))] = *bytes;
    }
  } else if (key.size() > 3 && value.ends_with('%')) {
    // "gfx0: 12.50%", "comp_1.0.0: 0.00%", "sdma0: 1.00%".
    if (auto percent = ParseDouble(TrimWhitespace(value.substr(0, value.size() - 1)))) {
      if (*percent >= 0 && *percent <= 100) usage.legacy_ring_percent[std::string(key)] = *percent;
    }
  }
}

}  // namespace

std::optional<uint64_t> ParseMemoryAmount(std::string_view text) {
  const auto fields = SplitFields(text);
  if (fields.empty() || fields.size() > 2) return std::nullopt;
  const std::optional<uint64_t> number = ParseUnsigned(fields[0]);
  if (!number) return std::nullopt;
  uint64_t scale = 1;
  if (fields.size() == 2) {
    const std::string_view unit = fields[1];
    if (unit == "KiB" || unit == "kB" || unit == "kiB") {
      scale = uint64_t{1} << 10;
    } else if (unit == "MiB") {
      scale = uint64_t{1} << 20;
    } else if (unit == "GiB") {
      scale = uint64_t{1} << 30;
    } else if (unit != "B") {
      return std::nullopt;
    }
  }
  if (*number > std::numeric_limits<uint64_t>::max() / scale) return std::nullopt;
  return *number * scale;
}

Result<DrmClientUsage> ParseDrmFdinfo(std::string_view text) {
  DrmClientUsage usage;
  for (std::string_view line : SplitLines(text)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = TrimWhitespace(line.substr(0, colon));
    const std::string_view value = TrimWhitespace(line.substr(colon + 1));
    if (key.empty()) continue;
    ParseLine(key, value, usage);
  }
  if (usage.driver.empty() && usage.legacy_format) usage.driver = "amdgpu";
  if (usage.driver.empty()) return MakeError(ErrorCode::kParse, "not a DRM client (no drm-driver)");
  return usage;
}

std::optional<uint64_t> DeviceMemoryBytes(const DrmClientUsage& usage) {
  auto find = [&](std::initializer_list<std::string_view> keys) -> std::optional<uint64_t> {
    for (std::string_view key : keys) {
      auto it = usage.memory_bytes.find(std::string(key));
      if (it != usage.memory_bytes.end()) return it->second;
    }
    return std::nullopt;
  };
  if (usage.driver == "amdgpu") return find({"memory-vram", "resident-vram", "total-vram"});
  if (usage.driver == "i915") return find({"total-local0", "resident-local0"});
  if (usage.driver == "xe") return find({"total-vram0", "resident-vram0"});
  return find({"total-vram0", "total-local0", "memory-vram"});
}

}  // namespace xpuperf::drm

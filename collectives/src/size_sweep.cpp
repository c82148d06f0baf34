#include "xpuperf/collectives/size_sweep.h"

#include <fmt/format.h>

#include <limits>

namespace xpuperf::collectives {
namespace {

Error BadSize(std::string_view text, std::string_view why) {
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("bad size '{}': {} (a positive number of bytes, optionally with K, "
                               "M or G for 2^10, 2^20, 2^30)",
                               text, why));
}

Result<int64_t> ParseOption(std::string_view option, std::string_view text) {
  Result<int64_t> size = ParseByteSize(text);
  if (!size.ok()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{}: {}", option, size.error().message));
  }
  return size;
}

}  // namespace

Result<int64_t> ParseByteSize(std::string_view text) {
  if (text.empty()) return BadSize(text, "empty");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const int digit = text[i] - '0';
    if (value > (kMax - digit) / 10) return BadSize(text, "too large");
    value = value * 10 + digit;
  }
  if (i == 0) return BadSize(text, "no digits");
  int64_t scale = 1;
  if (i < text.size()) {
    switch (text[i]) {
      case 'k':
      case 'K':
        scale = int64_t{1} << 10;
        break;
      case 'm':
      case 'M':
        scale = int64_t{1} << 20;
        break;
      case 'g':
      case 'G':
        scale = int64_t{1} << 30;
        break;
      default:
        return BadSize(text, fmt::format("unknown suffix '{}'", text.substr(i)));
    }
    if (i + 1 != text.size())
      return BadSize(text, fmt::format("unknown suffix '{}'", text.substr(i)));
  }
  if (value == 0) return BadSize(text, "zero");
  if (value > kMax / scale) return BadSize(text, "too large");
  return value * scale;
}

std::string FormatByteSize(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.4g} {}", value, kUnits[unit]);
}

Result<std::vector<int64_t>> MakeSizeSweep(const SizeSweepSpec& spec) {
  XPUPERF_ASSIGN_OR_RETURN(const int64_t begin, ParseOption("-b", spec.begin));
  XPUPERF_ASSIGN_OR_RETURN(const int64_t end, ParseOption("-e", spec.end));
  if (end < begin) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("-e {} is smaller than -b {}", spec.end, spec.begin));
  }
  const bool additive = !spec.increment.empty();
  if (additive && spec.factor != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give either -f (multiply) or -i (add), not both");
  }
  int64_t increment = 0;
  if (additive) {
    XPUPERF_ASSIGN_OR_RETURN(increment, ParseOption("-i", spec.increment));
  }
  const int64_t factor = spec.factor == 0 ? 2 : spec.factor;
  if (!additive && factor < 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("-f {}: the factor must be at least 2", spec.factor));
  }
  std::vector<int64_t> sizes;
  for (int64_t size = begin; size <= end;) {
    if (sizes.size() == kMaxSweepSizes) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("the sweep from {} to {} has more than {} sizes; use a larger "
                                   "step",
                                   spec.begin, spec.end, kMaxSweepSizes));
    }
    sizes.push_back(size);
    if (additive) {
      if (size > end - increment) break;
      size += increment;
    } else {
      if (size > end / factor) break;
      size *= factor;
    }
  }
  return sizes;
}

}  // namespace xpuperf::collectives

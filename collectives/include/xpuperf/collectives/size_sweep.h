// The message sizes of a run, from nccl-tests-style options: -b begin, -e end, and either -f
// (multiply by a factor) or -i (add an increment). Sizes take K, M and G suffixes (powers of 1024).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

// "8" -> 8, "64K" -> 65536, "64M" -> 67108864, "1G" -> 1073741824 (suffix case-insensitive).
// kInvalidArgument for an empty text, anything else after the digits, 0 or overflow.
Result<int64_t> ParseByteSize(std::string_view text);

// "8 B", "64 KiB", "1.5 MiB": the size in the largest binary unit that keeps it >= 1.
std::string FormatByteSize(int64_t bytes);

struct SizeSweepSpec {
  std::string begin = "8";  // -b
  std::string end = "64M";  // -e
  int64_t factor = 0;       // -f: > 1 multiplies; 0 = unset
  std::string increment;    // -i: adds; empty = unset
};

inline constexpr size_t kMaxSweepSizes = 4096;

// begin, then begin x factor (or + increment) ... up to and including end. Without -f and -i the
// factor is 2. kInvalidArgument (naming the option) for a malformed size, end < begin, a factor
// < 2, both -f and -i, or more than kMaxSweepSizes sizes.
Result<std::vector<int64_t>> MakeSizeSweep(const SizeSweepSpec& spec);

}  // namespace xpuperf::collectives

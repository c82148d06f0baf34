// The memory pattern test of `xpuperf diag`: a buffer written and read back with patterns that
// catch stuck bits, coupled bits and address faults (all zeros, all ones, walking ones, the
// complement checkerboard, each word's own address, a seeded random stream), every word verified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::diag {

struct PatternResult {
  uint64_t bytes = 0;
  int patterns = 0;            // patterns written and verified
  uint64_t words_checked = 0;  // 8-byte words read back
  uint64_t errors = 0;         // words that read back wrong
  std::string first_error;     // "pattern walking-ones: word 1234 read 0x… expected 0x…"
  double seconds = 0;
};

// Tests `bytes` of host memory (rounded down to 8-byte words) `passes` times over; stops early
// with kUnavailable "interrupted" on SIGINT/SIGTERM. kInvalidArgument for 0 bytes; kUnavailable
// when the memory cannot be had.
Result<PatternResult> RunMemoryPatterns(uint64_t bytes, int passes = 1, uint64_t seed = 1);

}  // namespace xpuperf::diag

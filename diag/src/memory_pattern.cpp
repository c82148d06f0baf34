#include "xpuperf/diag/memory_pattern.h"

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <memory>
#include <new>

#include "xpuperf/core/cancellation.h"

namespace xpuperf::diag {
namespace {

struct Pattern {
  const char* name;
  std::function<uint64_t(uint64_t index, uint64_t seed)> word;
};

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const Pattern kPatterns[] = {
    {"zeros", [](uint64_t, uint64_t) { return uint64_t{0}; }},
    {"ones", [](uint64_t, uint64_t) { return ~uint64_t{0}; }},
    {"walking-ones", [](uint64_t i, uint64_t) { return uint64_t{1} << (i % 64); }},
    {"checkerboard",
     [](uint64_t i, uint64_t) {
       return (i & 1) != 0 ? 0x5555555555555555ULL : 0xaaaaaaaaaaaaaaaaULL;
     }},
    {"own-address", [](uint64_t i, uint64_t) { return i * 8; }},
    {"random", [](uint64_t i, uint64_t seed) { return SplitMix(i ^ (seed << 32)); }},
};

}  // namespace

Result<PatternResult> RunMemoryPatterns(uint64_t bytes, int passes, uint64_t seed) {
  const uint64_t words = bytes / 8;
  if (words == 0) return MakeError(ErrorCode::kInvalidArgument, "no memory to test (0 bytes)");
  std::unique_ptr<volatile uint64_t[]> buffer(new (std::nothrow) volatile uint64_t[words]);
  if (!buffer) {
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("cannot allocate {} MiB to test", bytes >> 20));
  }
  const auto start = std::chrono::steady_clock::now();
  PatternResult result;
  result.bytes = words * 8;
  for (int pass = 0; pass < passes; ++pass) {
    for (const Pattern& pattern : kPatterns) {
      const uint64_t pass_seed = seed + static_cast<uint64_t>(pass);
      for (uint64_t i = 0; i < words; ++i) {
        buffer[i] = pattern.word(i, pass_seed);
        if ((i & 0xfffff) == 0 && CancellationRequested())
          return MakeError(ErrorCode::kUnavailable, "interrupted");
      }
      for (uint64_t i = 0; i < words; ++i) {
        const uint64_t expected = pattern.word(i, pass_seed);
        const uint64_t read = buffer[i];
        if (read != expected) {
          if (result.errors++ == 0) {
            result.first_error = fmt::format("pattern {}: word {} read {:#018x} expected {:#018x}",
                                             pattern.name, i, read, expected);
          }
        }
      }
      result.words_checked += words;
      ++result.patterns;
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace xpuperf::diag

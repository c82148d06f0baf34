#include "xpuperf/diag/memory_pattern.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <new>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/cuda_bench/memory_test_patterns.h"

namespace xpuperf::diag {
namespace {}  // namespace

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
    for (int pattern = 0; pattern < cuda_bench::kMemoryTestPatterns; ++pattern) {
      const uint64_t pass_seed = seed + static_cast<uint64_t>(pass);
      for (uint64_t i = 0; i < words; ++i) {
        buffer[i] = cuda_bench::MemoryTestWord(pattern, i, pass_seed);
        if ((i & 0xfffff) == 0 && CancellationRequested())
          return MakeError(ErrorCode::kUnavailable, "interrupted");
      }
      for (uint64_t i = 0; i < words; ++i) {
        const uint64_t expected = cuda_bench::MemoryTestWord(pattern, i, pass_seed);
        const uint64_t read = buffer[i];
        if (read != expected) {
          if (result.errors++ == 0) {
            result.first_error =
                fmt::format("pattern {}: word {} read {:#018x} expected {:#018x}",
                            cuda_bench::kMemoryTestPatternNames[pattern], i, read, expected);
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

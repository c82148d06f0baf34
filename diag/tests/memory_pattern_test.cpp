// The memory pattern test verifies every word of every pattern and says how much it checked.
#include "xpuperf/diag/memory_pattern.h"

#include <gtest/gtest.h>

namespace xpuperf::diag {
namespace {

TEST(MemoryPatternTest, EveryWordOfEveryPatternIsVerified) {
  auto result = RunMemoryPatterns(1 << 20, 2);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->bytes, 1u << 20);
  EXPECT_EQ(result->patterns, 12);  // six patterns, two passes
  EXPECT_EQ(result->words_checked, 12u * (1u << 17));
  EXPECT_EQ(result->errors, 0u);
  EXPECT_TRUE(result->first_error.empty());
}

TEST(MemoryPatternTest, NothingToTestIsAnError) {
  EXPECT_FALSE(RunMemoryPatterns(7).ok());  // less than one word
}

}  // namespace
}  // namespace xpuperf::diag

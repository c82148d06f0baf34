#include "xpuperf/core/utc_time.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(UtcTimeTest, SecondsAndFractions) {
  // 2026-12-07T04:45:12.123456789Z
  const int64_t ns = 1796618712123456789;
  EXPECT_EQ(UtcTimestamp(ns), "2026-12-07T04:45:12Z");
  EXPECT_EQ(UtcTimestamp(ns, 3), "2026-12-07T04:45:12.123Z");
  EXPECT_EQ(UtcTimestamp(ns, 9), "2026-12-07T04:45:12.123456789Z");
  EXPECT_EQ(UtcTimestamp(0, 3), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(UtcTimestamp(-1, 3), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(UtcTimestamp(5'000'000, 12), "1970-01-01T00:00:00.005000000Z");  // clamped to 9
}

}  // namespace
}  // namespace xpuperf

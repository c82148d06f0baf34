// WithContext: the one way to say where an error happened.
#include "xpuperf/core/error_context.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(ErrorContextTest, KeepsTheCodeAndPutsTheContextFirst) {
  const Error inner = MakeError(ErrorCode::kParse, "malformed JSON at byte 12");
  const Error outer = WithContext(inner, "trace.json");
  EXPECT_EQ(outer.code, ErrorCode::kParse);
  EXPECT_EQ(outer.message, "trace.json: malformed JSON at byte 12");
  EXPECT_EQ(WithContext(outer, "rank 3").message, "rank 3: trace.json: malformed JSON at byte 12");
}

}  // namespace
}  // namespace xpuperf

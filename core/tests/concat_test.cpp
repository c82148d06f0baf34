#include "xpuperf/core/concat.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace xpuperf {
namespace {

TEST(ConcatTest, JoinsEveryKindOfPieceInOrder) {
  const std::string dir = "/sys/class/drm";
  const std::string_view entry = "card0";
  EXPECT_EQ(Concat(dir, "/", entry, "/device"), "/sys/class/drm/card0/device");
}

TEST(ConcatTest, EmptyPiecesAndSinglePiece) {
  EXPECT_EQ(Concat(std::string(), "", std::string_view()), "");
  EXPECT_EQ(Concat("only"), "only");
}

TEST(ConcatTest, LongPieces) {
  const std::string long_piece(1000, 'x');
  const std::string joined = Concat(long_piece, "/", long_piece);
  EXPECT_EQ(joined.size(), 2001u);
  EXPECT_EQ(joined[1000], '/');
}

}  // namespace
}  // namespace xpuperf

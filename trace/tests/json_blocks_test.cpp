// The 64-byte classifier and the string tracker against a byte-at-a-time reference.
#include "json_blocks.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace xpuperf::trace::internal {
namespace {

// Reference: walks the text once, byte by byte, and says which bytes are inside strings. As in
// simdjson, a backslash escapes the next byte wherever it is (outside a string it is invalid JSON
// anyway; the parser reports it).
std::vector<bool> InsideStringsByteByByte(const std::string& text) {
  std::vector<bool> inside(text.size(), false);
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool this_escaped = escaped;
    escaped = !this_escaped && c == '\\';
    if (c == '"' && !this_escaped) {
      in_string = !in_string;
      inside[i] = in_string;  // the opening quote counts as inside, the closing one outside
    } else {
      inside[i] = in_string;
    }
  }
  return inside;
}

std::vector<bool> InsideStringsByBlocks(const std::string& text) {
  std::vector<bool> inside(text.size(), false);
  StringTracker tracker;
  for (size_t block = 0; block < text.size(); block += 64) {
    size_t n = std::min<size_t>(64, text.size() - block);
    BlockMasks m =
        n == 64 ? ClassifyBlock(text.data() + block) : ClassifyBytes(text.data() + block, n);
    uint64_t in_string = tracker.InString(m);
    for (size_t i = 0; i < n; ++i) inside[block + i] = (in_string >> i) & 1;
  }
  return inside;
}

TEST(JsonBlocksTest, BlockAndByteClassifiersAgree) {
  std::string text = R"({"name": "a{b}[c]\"d\\", "x": [1, {"y": "\\\""}]}  )";
  while (text.size() < 64) text += ' ';
  text.resize(64);
  BlockMasks fast = ClassifyBlock(text.data());
  BlockMasks slow = ClassifyBytes(text.data(), 64);
  EXPECT_EQ(fast.quote, slow.quote);
  EXPECT_EQ(fast.backslash, slow.backslash);
  EXPECT_EQ(fast.open, slow.open);
  EXPECT_EQ(fast.close, slow.close);
  // '{' '[' open, '}' ']' close; nothing else (0x7B|0x20 tricks must not catch other bytes).
  EXPECT_EQ(slow.open & slow.close, 0u);
  EXPECT_NE(slow.open, 0u);
}

TEST(JsonBlocksTest, EscapesAndStringsAcrossBlockBoundaries) {
  // A string whose escaped quote and backslash runs straddle the 64-byte boundary.
  std::string text(60, ' ');
  text += R"("abc\\\"x\\" [1] "\\\\" {"k": "v\"}"} )";
  std::vector<bool> expected = InsideStringsByteByByte(text);
  EXPECT_EQ(InsideStringsByBlocks(text), expected);
  for (size_t shift = 0; shift < 70; ++shift) {
    std::string shifted = std::string(shift, ' ') + text;
    EXPECT_EQ(InsideStringsByBlocks(shifted), InsideStringsByteByByte(shifted)) << shift;
  }
}

TEST(JsonBlocksTest, RandomTextMatchesTheReference) {
  std::mt19937 rng(7);
  const std::string alphabet = "\"\\{}[]a ,:";
  for (int round = 0; round < 200; ++round) {
    std::string text(1 + rng() % 400, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    ASSERT_EQ(InsideStringsByBlocks(text), InsideStringsByteByByte(text)) << text;
  }
}

TEST(JsonBlocksTest, PrefixXorMarksBytesAfterAnOddNumberOfBits) {
  EXPECT_EQ(PrefixXor(0), 0u);
  EXPECT_EQ(PrefixXor(0b1001), 0b0111u);
  EXPECT_EQ(PrefixXor(uint64_t{1}), ~uint64_t{0});
}

}  // namespace
}  // namespace xpuperf::trace::internal

// The reader's number text: microseconds to nanoseconds, eight digits at a time where the bytes
// past the text are readable (a padded parse buffer), against a digit-by-digit reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "event_parser.h"

namespace xpuperf::trace::internal {
namespace {

// Digit by digit: [sign] digits [. digits], nanoseconds rounded half up at the fourth fraction
// digit; nullopt when there are no digits or the whole part would not fit int64 nanoseconds.
std::optional<int64_t> Reference(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  __int128 whole = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    whole = whole * 10 + (text[i] - '0');
    if (digits >= 19) return std::nullopt;
  }
  if (whole * 1000 + 999 > INT64_MAX) return std::nullopt;
  int64_t fraction = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int taken = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
      if (taken < 3) fraction = fraction * 10 + (text[i] - '0');
      if (taken == 3 && text[i] >= '5') ++fraction;
      ++taken;
    }
    for (int k = taken; k < 3; ++k) fraction *= 10;
  }
  if (digits == 0) return std::nullopt;
  const auto value = static_cast<int64_t>(whole * 1000 + fraction);
  return negative ? -value : value;
}

// `text` in a buffer followed by `after` and 64 more bytes, read with and without the padding.
void ExpectLikeReference(const std::string& text, const std::string& after) {
  std::string buffer = text + after + std::string(64, '7');
  const std::string_view view(buffer.data(), text.size());
  const std::optional<int64_t> expected = Reference(text);
  for (size_t readable : {size_t{0}, size_t{64}}) {
    int64_t nanos = 0;
    const bool ok = MicrosTextToNanos(view, &nanos, nullptr, readable);
    ASSERT_EQ(ok, expected.has_value()) << "'" << text << "' then '" << after << "'";
    if (ok) {
      EXPECT_EQ(nanos, *expected) << "'" << text << "' then '" << after << "'";
    }
  }
}

TEST(NumberTextTest, EveryLengthOfDigitsBeforeEveryKindOfByte) {
  // The bytes around the digits' range ('/' and ':'), those whose nibble arithmetic carries
  // (0xFA..0xFF), and what ends a JSON number.
  const std::string enders[] = {"",  ",",    "}",    "]",  " ",  "\"", "/",
                                ":", "\xfa", "\xff", ".5", "e3", "0",  "99999999"};
  std::string digits;
  for (int length = 0; length <= 22; ++length) {
    for (const std::string& after : enders) {
      ExpectLikeReference(digits, after);
      ExpectLikeReference("-" + digits, after);
      ExpectLikeReference(digits + ".125", after);
      ExpectLikeReference(digits + ".1239", after);
    }
    digits += static_cast<char>('0' + (length * 7 + 3) % 10);
  }
  // The largest whole microseconds that fit, and one more.
  ExpectLikeReference("9223372036854774", ",");
  ExpectLikeReference("9223372036854775", ",");
}

TEST(NumberTextTest, RandomDigitTextsMatchTheReference) {
  std::mt19937_64 random(7);
  const std::string alphabet = "0123456789012345678901234567890123456789.-/:, \"e";
  for (int i = 0; i < 20000; ++i) {
    std::string text, after;
    const size_t length = random() % 24, tail = random() % 10;
    for (size_t k = 0; k < length; ++k) text += alphabet[random() % alphabet.size()];
    for (size_t k = 0; k < tail; ++k) after += alphabet[random() % alphabet.size()];
    if (text.find('e') != std::string::npos) continue;  // exponents go through strtod
    ExpectLikeReference(text, after);
  }
}

// A value with no text (an object or array where a number belongs) points nowhere: nothing
// past it is read.
TEST(NumberTextTest, EmptyTextIsNotANumberEvenWithPadding) {
  int64_t nanos = 7;
  EXPECT_FALSE(MicrosTextToNanos(std::string_view(), &nanos, nullptr, 64));
  EXPECT_EQ(nanos, 7);
}

TEST(NumberTextTest, KinetoTimestampsExactly) {
  int64_t nanos = 0;
  const std::string padded = std::string("1694039968933321.125") + std::string(64, ' ');
  ASSERT_TRUE(MicrosTextToNanos(std::string_view(padded.data(), 20), &nanos, nullptr, 64));
  EXPECT_EQ(nanos, 1694039968933321125);
  ASSERT_TRUE(MicrosTextToNanos("12345678", &nanos));
  EXPECT_EQ(nanos, 12345678000);
}

}  // namespace
}  // namespace xpuperf::trace::internal

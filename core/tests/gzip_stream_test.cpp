// Both inflaters (zlib and ISA-L) give the same bytes and the same errors for the same input:
// members, truncation, corruption, trailing bytes, the cap at its exact edge, cancellation.
#include "xpuperf/core/gzip_stream.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <random>

#include "gzip_test_data.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf {
namespace {

// JSON-like text that compresses about as well as a trace (ratio ~10).
std::string TraceLikeText(size_t bytes) {
  std::mt19937 random(7);
  std::string text;
  while (text.size() < bytes) {
    text += "{\"ph\": \"X\", \"name\": \"aten::op" + std::to_string(random() % 50) +
            "\", \"ts\": " + std::to_string(random() % 100000000) +
            ", \"dur\": " + std::to_string(random() % 1000) + "},\n";
  }
  text.resize(bytes);
  return text;
}

class GzipStreamTest : public ::testing::TestWithParam<InflateEngine> {
 protected:
  void SetUp() override {
    if (GetParam() == InflateEngine::kIsal && !HaveIsal()) {
      GTEST_SKIP() << "built without ISA-L (libisal-dev): only the zlib engine is tested";
    }
  }
  Result<std::string> Inflate(std::string_view gz, uint64_t cap = 64 << 20) {
    return InflateGzip(gz, "t.json.gz", cap, GetParam());
  }
};

TEST_P(GzipStreamTest, InflatesWholeAndInSmallReads) {
  const std::string text = TraceLikeText(3 << 20);
  const std::string gz = Gzip(text);
  auto whole = Inflate(gz);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(*whole, text);
  // Odd read sizes: output boundaries fall anywhere, including inside the trailer's processing.
  auto stream = OpenGzipStream(gz, "t.json.gz", 64 << 20, GetParam());
  ASSERT_TRUE(stream.ok());
  std::string pieces;
  char buffer[4093];
  for (;;) {
    auto got = (*stream)->Read(buffer, sizeof buffer);
    ASSERT_TRUE(got.ok()) << got.error().message;
    if (*got == 0) break;
    pieces.append(buffer, *got);
  }
  EXPECT_EQ(pieces, text);
  EXPECT_EQ((*stream)->produced(), text.size());
  EXPECT_EQ((*stream)->Read(buffer, sizeof buffer).value(), 0u);  // stays at the end
}

TEST_P(GzipStreamTest, ConcatenatedMembersAndEmptyMembers) {
  auto both = Inflate(Gzip("hello ") + Gzip("") + Gzip("world"));
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(*both, "hello world");
  const std::string big = TraceLikeText(1 << 20);
  auto large = Inflate(Gzip(big, 1) + Gzip(big, 9));
  ASSERT_TRUE(large.ok()) << large.error().message;
  EXPECT_EQ(*large, big + big);
}

TEST_P(GzipStreamTest, TrailingBytesAreIgnoredUnlessTheyStartAMember) {
  auto zeros = Inflate(Gzip("data") + std::string(1000, '\0'));
  ASSERT_TRUE(zeros.ok()) << zeros.error().message;
  EXPECT_EQ(*zeros, "data");
  auto text = Inflate(Gzip("data") + "garbage");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "data");
  // A 0x1f announces a member: a bad header after it is corrupt data, as with gzip(1).
  auto bad_member = Inflate(Gzip("data") + "\x1f" + "Xgarbage garbage");
  ASSERT_FALSE(bad_member.ok());
  EXPECT_EQ(bad_member.error().code, ErrorCode::kParse);
  EXPECT_NE(bad_member.error().message.find("corrupt gzip data"), std::string::npos)
      << bad_member.error().message;
  // A lone 0x1f at the end is a member cut short.
  auto lone = Inflate(Gzip("data") + "\x1f");
  ASSERT_FALSE(lone.ok());
  EXPECT_NE(lone.error().message.find("truncated"), std::string::npos) << lone.error().message;
}

TEST_P(GzipStreamTest, TruncationIsNamedAtEveryCut) {
  const std::string text = TraceLikeText(200000);
  const std::string gz = Gzip(text);
  for (size_t cut : {size_t{1}, size_t{5}, size_t{10}, size_t{11}, gz.size() / 3, gz.size() / 2,
                     gz.size() - 9, gz.size() - 4, gz.size() - 1}) {
    auto truncated = Inflate(std::string_view(gz).substr(0, cut));
    ASSERT_FALSE(truncated.ok()) << "cut at " << cut;
    EXPECT_EQ(truncated.error().code, ErrorCode::kParse);
    EXPECT_NE(truncated.error().message.find("t.json.gz: gzip data truncated at compressed byte " +
                                             std::to_string(cut)),
              std::string::npos)
        << truncated.error().message;
  }
}

TEST_P(GzipStreamTest, CorruptionIsNamed) {
  const std::string text = TraceLikeText(200000);
  const std::string gz = Gzip(text);
  std::string bad_header = gz;
  bad_header[2] = 9;  // compression method 9 does not exist
  std::string bad_crc = gz;
  bad_crc[gz.size() - 6] = static_cast<char>(bad_crc[gz.size() - 6] ^ 0x55);
  std::string bad_block = gz;
  bad_block[10] = static_cast<char>(0xff);  // first block header: reserved block type 3
  std::string reserved_flag = gz;
  reserved_flag[3] = static_cast<char>(0x20);  // FLG bit 5: reserved, must be zero
  for (const std::string* corrupt : {&bad_header, &bad_crc, &bad_block, &reserved_flag}) {
    auto r = Inflate(*corrupt);
    ASSERT_FALSE(r.ok()) << "inflated corrupt data";
    EXPECT_EQ(r.error().code, ErrorCode::kParse);
    EXPECT_NE(r.error().message.find("t.json.gz: corrupt gzip data at compressed byte "),
              std::string::npos)
        << r.error().message;
  }
  // Random damage in the middle: an error or different bytes, never a crash or hang.
  std::mt19937 random(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::string damaged = gz;
    damaged[20 + random() % (gz.size() - 40)] ^= static_cast<char>(1 + random() % 255);
    auto r = Inflate(damaged);
    EXPECT_FALSE(r.ok() && *r == text);
  }
}

TEST_P(GzipStreamTest, CapHoldsAtItsExactEdge) {
  const std::string text = TraceLikeText(1 << 20);
  const std::string gz = Gzip(text);
  auto exact = Inflate(gz, text.size());
  ASSERT_TRUE(exact.ok()) << exact.error().message;
  EXPECT_EQ(exact->size(), text.size());
  auto over = Inflate(gz, text.size() - 1);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(over.error().message.find("--max-decompressed-bytes"), std::string::npos);
  // A bomb: 32 MiB of zeros (~32 KiB compressed) stops at a 1 MiB cap.
  const std::string bomb = Gzip(std::string(32 << 20, '\0'), 9);
  auto stopped = Inflate(bomb, 1 << 20);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, ErrorCode::kInvalidArgument);
  // The cap counts every member together.
  auto members = Inflate(Gzip(text) + Gzip(text), 2 * text.size() - 1);
  EXPECT_FALSE(members.ok());
}

TEST_P(GzipStreamTest, CancellationStopsTheStream) {
  const std::string gz = Gzip(TraceLikeText(1 << 20));
  auto stream = OpenGzipStream(gz, "t.json.gz", 64 << 20, GetParam());
  ASSERT_TRUE(stream.ok());
  char buffer[4096];
  ASSERT_TRUE((*stream)->Read(buffer, sizeof buffer).ok());
  RequestCancellation(SIGINT);
  auto stopped = (*stream)->Read(buffer, sizeof buffer);
  auto whole = Inflate(gz);
  const std::string expected = CheckCancelled().error().message;
  ResetCancellationForTesting();
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().message, expected);
  ASSERT_FALSE(whole.ok());
}

INSTANTIATE_TEST_SUITE_P(Engines, GzipStreamTest,
                         ::testing::Values(InflateEngine::kZlib, InflateEngine::kIsal),
                         [](const auto& info) {
                           return info.param == InflateEngine::kZlib ? "zlib" : "isal";
                         });

// Every single-bit flip of a two-member file (header, deflate data, trailer, the second header)
// and every cut of it: ISA-L gives what zlib gives, the same bytes or an error of the same code.
// (isal_inflate alone accepts reserved header flags; found by the trace reader's fuzzer.)
TEST(GzipStreamEngines, EveryBitFlipAndCutHasOneOutcome) {
  if (!HaveIsal()) GTEST_SKIP() << "built without ISA-L (libisal-dev): one engine only";
  const std::string gz = Gzip("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}]}") + Gzip("[]\n");
  auto expect_one_outcome = [](const std::string& input, const std::string& what) {
    auto zlib = InflateGzip(input, "t.gz", 1 << 20, InflateEngine::kZlib);
    auto isal = InflateGzip(input, "t.gz", 1 << 20, InflateEngine::kIsal);
    ASSERT_EQ(zlib.ok(), isal.ok())
        << what << ": zlib " << (zlib.ok() ? "ok" : zlib.error().message) << ", ISA-L "
        << (isal.ok() ? "ok" : isal.error().message);
    if (zlib.ok()) {
      EXPECT_EQ(*zlib, *isal) << what;
    } else {
      EXPECT_EQ(zlib.error().code, isal.error().code) << what;
    }
  };
  for (size_t byte = 0; byte < gz.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = gz;
      flipped[byte] = static_cast<char>(flipped[byte] ^ (1 << bit));
      expect_one_outcome(flipped,
                         "bit " + std::to_string(bit) + " of byte " + std::to_string(byte));
    }
  }
  for (size_t cut = 0; cut < gz.size(); ++cut) {
    expect_one_outcome(gz.substr(0, cut), "cut at " + std::to_string(cut));
  }
}

TEST(GzipStreamEngines, NameSaysWhichIsUsed) {
  const std::string name = InflaterName();
  EXPECT_EQ(name.rfind(HaveIsal() ? "ISA-L " : "zlib ", 0), 0u) << name;
  if (!HaveIsal()) {
    auto refused = OpenGzipStream("", "t.gz", 1, InflateEngine::kIsal);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUnsupported);
  }
}

}  // namespace
}  // namespace xpuperf

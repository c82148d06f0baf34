// A .json.gz parsed while a second thread inflates it (trace/src/inflating_text.h): the same trace
// as the text read whole, the inflater's errors first, the fallbacks when the gzip trailer does
// not state the text's size, and an event larger than the inflater's window.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "gzip_test_data.h"
#include "inflating_text.h"
#include "trace_test_util.h"

namespace xpuperf::trace {
namespace {

using xpuperf::Gzip;

using internal::InflatingText;
using internal::ReadStreamedGzip;
using testing::KinetoJson;

class StreamedGzipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("xpuperf_streamed_gzip_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  std::filesystem::path dir_;
};

// `count` kernels, ~150 bytes of JSON each.
std::string Kernels(int count) {
  std::string events;
  for (int i = 0; i < count; ++i) {
    if (i > 0) events += ",";
    events += R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(i % 97) +
              R"(","pid":0,"tid":7,"ts":)" + std::to_string(1000 + 3 * i) +
              R"(,"dur":2,"args":{"stream":7,"correlation":)" + std::to_string(i) + "}}";
  }
  return KinetoJson(events);
}

// Small limits, so that a few MB exercise the inflater's window and the reader's waits.
constexpr InflatingText::Limits kSmall{.threaded_from_bytes = 0, .window_bytes = 1 << 16};

TEST_F(StreamedGzipTest, GivesTheTraceOfTheWholeText) {
  const std::string text = Kernels(40'000);  // ~6 MB: several of the reader's 1 MiB chunks
  const std::string path = Write("t.json.gz", Gzip(text, 1));
  auto streamed = ReadStreamedGzip(path, kSmall);
  ASSERT_TRUE(streamed.ok()) << streamed.error().message;
  ASSERT_TRUE(streamed->has_value());
  const Trace whole = testing::ParseOrDie(text);
  const Trace& trace = **streamed;
  ASSERT_EQ(trace.events.size(), whole.events.size());
  EXPECT_EQ(trace.events.size(), 40'000u);
  for (size_t i = 0; i < trace.events.size(); i += 997) {
    EXPECT_EQ(trace.events[i].ts_ns, whole.events[i].ts_ns);
    EXPECT_EQ(trace.Name(trace.events[i]), whole.Name(whole.events[i]));
  }
  EXPECT_EQ(trace.input_bytes, static_cast<int64_t>(text.size()));
  // ReadTraceFile streams files of 4 MiB and more only; a small one is read whole, the same.
  auto read = ReadTraceFile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->events.size(), 40'000u);
}

TEST_F(StreamedGzipTest, AnEventLargerThanTheWindowIsRead) {
  // One event with a 1 MiB argument, 16x the inflater's window here: the reader asks for it.
  const std::string big(1 << 20, 'x');
  const std::string text = KinetoJson(
      R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":5,"dur":1,"args":{"a":")" + big +
      R"("}},{"ph":"X","cat":"cpu_op","name":"next","pid":1,"tid":1,"ts":9,"dur":1})");
  auto streamed = ReadStreamedGzip(Write("big.json.gz", Gzip(text, 1)), kSmall);
  ASSERT_TRUE(streamed.ok()) << streamed.error().message;
  ASSERT_TRUE(streamed->has_value());
  EXPECT_EQ((*streamed)->events.size(), 2u);
}

TEST_F(StreamedGzipTest, TheInflatersErrorsComeFirst) {
  const std::string gz = Gzip(Kernels(20'000), 1);
  // A wrong CRC: the text inflates to the stated size and parses, and the check at the end of
  // the member fails: the inflater's error, not a trace.
  std::string crc = gz;
  crc[gz.size() - 8] = static_cast<char>(~gz[gz.size() - 8]);
  auto bad_crc = ReadStreamedGzip(Write("crc.json.gz", crc), kSmall);
  ASSERT_FALSE(bad_crc.ok());
  EXPECT_NE(bad_crc.error().message.find("gzip"), std::string::npos) << bad_crc.error().message;
  // Damaged deflate data: either the inflater fails, or its text is not the stated size and the
  // file is read whole, which fails the same way.
  std::string corrupt = gz;
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i)
    corrupt[i] = static_cast<char>(~gz[i]);
  const std::string corrupt_path = Write("corrupt.json.gz", corrupt);
  auto bad = ReadStreamedGzip(corrupt_path, kSmall);
  if (bad.ok()) {
    EXPECT_FALSE(bad->has_value());
    auto whole = ReadTraceFile(corrupt_path);
    ASSERT_FALSE(whole.ok());
    EXPECT_NE(whole.error().message.find("gzip"), std::string::npos) << whole.error().message;
  } else {
    EXPECT_NE(bad.error().message.find("gzip"), std::string::npos) << bad.error().message;
  }
  // Cut in the middle: its trailer is gone, the last 4 bytes state no size worth streaming; then
  // the whole read reports the truncation.
  const std::string cut = Write("cut.json.gz", gz.substr(0, gz.size() / 2));
  auto truncated = ReadTraceFile(cut);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos)
      << truncated.error().message;
}

TEST_F(StreamedGzipTest, MalformedJsonIsReportedAtItsByte) {
  std::string text = Kernels(20'000);
  const size_t at = text.size() / 2;
  text[at] = '#';
  auto streamed = ReadStreamedGzip(Write("bad.json.gz", Gzip(text, 1)), kSmall);
  ASSERT_FALSE(streamed.ok());
  EXPECT_NE(streamed.error().message.find("bad.json.gz"), std::string::npos)
      << streamed.error().message;
}

TEST_F(StreamedGzipTest, TwoMembersAreReadWhole) {
  // gzip(1) concatenates members; the trailer states only the last one's size. A short first
  // member and a long last one: the text is longer than stated, found at the end, and the file is
  // then read whole (nullopt here; ReadTraceFile gives the right trace).
  const std::string text = Kernels(30'000);
  const size_t split = 1000;
  const std::string path =
      Write("two.json.gz", Gzip(text.substr(0, split), 1) + Gzip(text.substr(split), 1));
  auto streamed = ReadStreamedGzip(path, kSmall);
  ASSERT_TRUE(streamed.ok()) << streamed.error().message;
  EXPECT_FALSE(streamed->has_value());
  auto read = ReadTraceFile(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->events.size(), 30'000u);
  // A long first member and a short last one: the stated size is below the compressed size,
  // so the file is not streamed at all.
  const std::string other = Write(
      "two_b.json.gz", Gzip(text.substr(0, text.size() - 2)) + Gzip(text.substr(text.size() - 2)));
  auto not_streamed = ReadStreamedGzip(other, kSmall);
  ASSERT_TRUE(not_streamed.ok());
  EXPECT_FALSE(not_streamed->has_value());
  EXPECT_EQ(ReadTraceFile(other)->events.size(), 30'000u);
}

}  // namespace
}  // namespace xpuperf::trace

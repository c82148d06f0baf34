#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <fstream>
#include <map>
#include <sstream>

#include "gzip_test_data.h"
#include "trace_test_util.h"
#include "xpuperf/trace/hta_convention.h"

namespace xpuperf::trace {
namespace {

using xpuperf::Gzip;

using testing::KinetoJson;
using testing::ParseOrDie;

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("xpuperf_trace_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Chunks of `chunk_bytes`, their ends guessed at "}, {" or scanned exactly.
ParseOptions ChunkOptions(size_t chunk_bytes, bool guess) {
  ParseOptions options;
  options.chunk_bytes = chunk_bytes;
  options.guess_chunk_ends = guess;
  return options;
}

void ExpectSameEvents(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].ts_ns, b.events[i].ts_ns);
    EXPECT_EQ(a.events[i].dur_ns, b.events[i].dur_ns);
    EXPECT_EQ(a.Name(a.events[i]), b.Name(b.events[i]));
  }
  EXPECT_EQ(a.skipped_events, b.skipped_events);
}

const char* kKernel =
    R"({"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": "stream 7", "ts": 1694039968933321.125, "dur": 2.5,
        "args": {"device": 0, "stream": 7, "correlation": 42, "External id": 9}})";

TEST(ReaderTest, ReadsFractionalMicrosecondsExactlyAsNanoseconds) {
  Trace t = ParseOrDie(KinetoJson(kKernel));
  ASSERT_EQ(t.events.size(), 1u);
  const TraceEvent& e = t.events[0];
  EXPECT_EQ(e.ts_ns, 1694039968933321125);  // a double would round this to a multiple of 256
  EXPECT_EQ(e.dur_ns, 2500);
  EXPECT_EQ(e.kind, EventKind::kKernel);
  EXPECT_EQ(e.stream, 7);
  EXPECT_EQ(e.correlation, 42);
  EXPECT_EQ(e.external_id, 9);
  EXPECT_EQ(t.Name(e), "sgemm");
  EXPECT_LT(e.tid, 0);  // a string tid is interned
  EXPECT_EQ(t.strings.Get(static_cast<uint32_t>(-1 - e.tid)), "stream 7");
  EXPECT_EQ(t.format, TraceFormat::kKineto);
}

TEST(ReaderTest, HeaderVariants) {
  // ranks as a quoted string, rank as a string, deviceProperties; and an absent distributedInfo.
  std::string header =
      R"("distributedInfo": {"backend": "nccl", "rank": "3", "world_size": 8, "pg_config": [{"ranks": "[0, 1]"}]},
         "deviceProperties": [{"id": 0, "name": "H100", "totalGlobalMem": 85000000000, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
         "displayTimeUnit": "ms", "baseTimeNanoseconds": 1735632360000000000)";
  Trace t = ParseOrDie(KinetoJson(kKernel, header));
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(t.world_size, 8);
  EXPECT_EQ(t.backend, "nccl");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].total_global_mem, 85000000000);
  EXPECT_EQ(t.devices[0].compute_major, 9);
  EXPECT_EQ(t.base_time_ns, 1735632360000000000);
  EXPECT_EQ(t.display_time_unit, "ms");
  Trace bare = ParseOrDie(R"({"traceEvents": []})");
  EXPECT_FALSE(bare.has_distributed_info);
  EXPECT_TRUE(bare.events.empty());
}

TEST(ReaderTest, OldFormatCategoriesAndLowercaseExternalId) {
  Trace t = ParseOrDie(KinetoJson(
      R"({"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"external id": 3}},
         {"ph": "X", "cat": "Kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 1, "args": {"stream": 7, "correlation": 1}},
         {"ph": "s", "cat": "async", "id": 1, "pid": 1, "tid": 1, "ts": 10})"));
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, EventKind::kCpuOp);
  EXPECT_EQ(t.events[0].external_id, 3);
  EXPECT_EQ(t.events[1].kind, EventKind::kKernel);
  EXPECT_EQ(t.format, TraceFormat::kKineto2021);
  EXPECT_EQ(t.flow_events, 1);
}

TEST(ReaderTest, VendorCategoriesAndMemoryEvents) {
  Trace t = ParseOrDie(KinetoJson(
      R"({"ph": "X", "cat": "mtia_kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 1},
         {"ph": "X", "cat": "xpu_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 0, "dur": 1},
         {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2,
          "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": 512, "Total Allocated": 1024, "Total Reserved": 2048}})"));
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, EventKind::kRuntime);
  EXPECT_EQ(t.events[1].kind, EventKind::kKernel);
  ASSERT_EQ(t.memory.size(), 1u);
  EXPECT_EQ(t.memory[0].bytes, 512);
  EXPECT_EQ(t.memory[0].total_allocated, 1024);
  EXPECT_EQ(t.memory[0].total_reserved, 2048);
  EXPECT_EQ(t.memory[0].device_type, 1);
}

TEST(ReaderTest, JaxDevicePlanesAreGpuOps) {
  Trace t = ParseOrDie(
      R"({"displayTimeUnit": "ns", "metadata": {"highres-ticks": true}, "traceEvents": [
          {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
          {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "/host:CPU"}},
          {"ph": "X", "pid": 1, "tid": 5, "name": "fusion.1", "ts": 100.5, "dur": 3.25},
          {"ph": "X", "pid": 2, "tid": 9, "name": "jit_step", "ts": 99, "dur": 10}]})");
  EXPECT_EQ(t.format, TraceFormat::kJax);
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, EventKind::kCpuOp);
  EXPECT_EQ(t.events[1].kind, EventKind::kKernel);
  EXPECT_EQ(t.events[1].ts_ns, 100500);
  EXPECT_EQ(t.events[1].dur_ns, 3250);
  EXPECT_EQ(t.events[1].device, 0);
  EXPECT_EQ(t.events[1].stream, 5);
}

TEST(ReaderTest, ArrayFormatAndGemmDims) {
  Trace t = ParseOrDie(
      R"([{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 1, "dur": 9,
           "args": {"External id": 4, "Input Dims": [[64], [64, 128], [128, 64], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"]}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 20, "dur": 1,
           "args": {"Input Dims": [[64, 64]]}}])");
  ASSERT_EQ(t.events.size(), 2u);
  auto dims = t.InputDims(t.events[0]);
  ASSERT_EQ(dims.size(), 5u);
  EXPECT_EQ(dims[1], (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(t.strings.Get(t.events[0].input_type), "float");
  EXPECT_EQ(t.events[1].input_dims, -1);  // only matrix products keep their shapes
}

TEST(ReaderTest, ManyEventsCrossChunkBoundaries) {
  std::string events;
  const int kEvents = 3000;  // ~400 KB of JSON in 4 KiB chunks
  for (int i = 0; i < kEvents; ++i) {
    if (i) events += ",";
    events += R"({"ph": "X", "cat": "cpu_op", "name": "op\"quoted{", "pid": 1, "tid": 1, "ts": )" +
              std::to_string(i * 10) + R"(, "dur": 5, "args": {"Call stack": "a]b}c,d", "pad": ")" +
              std::string(40, 'x') + "\"}}";
  }
  auto parsed = ParseTrace(KinetoJson(events), "many.json", 4096);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Trace& t = *parsed;
  ASSERT_EQ(t.events.size(), static_cast<size_t>(kEvents));
  EXPECT_EQ(t.events.back().ts_ns, (kEvents - 1) * 10000LL);
  EXPECT_EQ(t.Name(t.events[0]), "op\"quoted{");
}

// Chunk ends are guessed at "}, {" and confirmed by parsing; these events put that pattern inside
// strings, inside nested objects of args and after the array, so guesses go wrong on purpose. The
// result must be the exact scan's, event for event; a malformed event gives the same error.
TEST(ReaderTest, WrongChunkGuessesAreUndone) {
  std::string events;
  const int kEvents = 2000;
  for (int i = 0; i < kEvents; ++i) {
    if (i) events += i % 3 ? ",\n" : ", ";
    events += R"({"ph": "X", "cat": "cpu_op", "name": "n}, {)" + std::to_string(i % 5) +
              R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) +
              R"(, "dur": 5, "args": {"list": [{"a": 1}, {"b": "}, {"}], "s": "x\"}, {"}})";
  }
  std::string json = KinetoJson(events);
  json.insert(json.size() - 1, R"(, "after": [{"x": 1}, {"y": 2}])");
  const ParseOptions guessed = ChunkOptions(256, true);
  const ParseOptions exact = ChunkOptions(256, false);
  auto a = ParseTrace(json, "guess.json", guessed);
  auto b = ParseTrace(json, "exact.json", exact);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_EQ(a->events.size(), static_cast<size_t>(kEvents));
  ExpectSameEvents(*a, *b);
  EXPECT_EQ(a->Name(a->events[7]), "n}, {2");

  // Break one event in the middle: both ways report the same byte.
  std::string broken = json;
  size_t at = broken.find(R"("ts": 10000,)");
  ASSERT_NE(at, std::string::npos);
  broken.replace(at, 12, R"("ts": 10000 )");
  auto c = ParseTrace(broken, "broken.json", guessed);
  auto d = ParseTrace(broken, "broken.json", exact);
  ASSERT_FALSE(c.ok());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(c.error().message, d.error().message);
  EXPECT_NE(c.error().message.find("malformed JSON at byte"), std::string::npos)
      << c.error().message;
}

// `json` fails the same way parsed as a copy and in place, and in place leaves it as it was.
void ExpectSameFailureInPlace(const std::string& json, const ParseOptions& copied) {
  ParseOptions in_place = copied;
  in_place.writable_text = true;
  std::string text = json;
  auto a = ParseTrace(json, "broken.json", copied);
  auto b = ParseTrace(text, "broken.json", in_place);
  ASSERT_FALSE(a.ok());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(a.error().message, b.error().message);
  EXPECT_EQ(text, json);
}

// Chunks parsed where they lie (writable text) give what copies give, wrong guesses and errors
// included, and leave the text as it was.
TEST(ReaderTest, ChunksParsedInPlaceMatchCopiesAndRestoreTheText) {
  std::string events;
  for (int i = 0; i < 500; ++i) {
    if (i) events += i % 2 ? ",\n" : ", ";
    events += R"({"ph": "X", "cat": "cpu_op", "name": "op}, {)" + std::to_string(i % 7) +
              R"(", "pid": 1, "tid": 2, "ts": )" + std::to_string(i * 10) +
              R"(.5, "dur": 5, "args": {"External id": )" + std::to_string(i) + "}}";
  }
  // Text after the array (so that the last chunk too is parsed in place).
  std::string with_header = KinetoJson(events);
  with_header.insert(with_header.size() - 1,
                     R"(, "deviceProperties": [{"id": 0, "name": "a device with a long name", )"
                     R"("totalGlobalMem": 1000000, "computeMajor": 8, "numSms": 4}])");
  for (const std::string& json : {KinetoJson(events), "[" + events + "]", with_header}) {
    for (bool guess : {true, false}) {
      ParseOptions copied = ChunkOptions(200, guess);
      ParseOptions in_place = copied;
      in_place.writable_text = true;
      std::string text = json;
      auto a = ParseTrace(json, "copy.json", copied);
      auto b = ParseTrace(text, "in_place.json", in_place);
      ASSERT_TRUE(a.ok()) << a.error().message;
      ASSERT_TRUE(b.ok()) << b.error().message;
      ASSERT_EQ(b->events.size(), 500u);
      ExpectSameEvents(*a, *b);
      EXPECT_EQ(text, json);
      // With writable padding past the text's end the last chunk is parsed in place too.
      std::string padded = json + std::string(128, '\0');
      ParseOptions with_padding = in_place;
      with_padding.writable_padding = 128;
      auto g =
          ParseTrace(std::string_view(padded.data(), json.size()), "padded.json", with_padding);
      ASSERT_TRUE(g.ok()) << g.error().message;
      ExpectSameEvents(*a, *g);
      EXPECT_EQ(padded, json + std::string(128, '\0'));

      std::string broken = json;
      const size_t at = broken.find(R"("ts": 2500.5,)");
      ASSERT_NE(at, std::string::npos);
      broken.replace(at, 13, R"("ts": 2500.5 )");
      ExpectSameFailureInPlace(broken, copied);

      // The last event broken where simdjson's error depends on the byte past the document's end
      // (a copy's padding is spaces; in place it is the text after the array, made spaces too).
      std::string last = json;
      const size_t at_last = last.rfind(R"("ph": "X",)");
      ASSERT_NE(at_last, std::string::npos);
      last.replace(at_last, 10, R"("ph":"X": 0,)");
      ExpectSameFailureInPlace(last, copied);
    }
  }
}

// A fuzzer's find: malformed text whose error simdjson decides by the byte past the document's
// end, which in place is the text after the array unless it is made spaces as a copy's padding.
TEST(ReaderTest, InPlaceErrorsDoNotDependOnTheTextAfterTheChunk) {
  std::ifstream file(std::string(XPUPERF_SOURCE_DIR) +
                     "/fuzz/corpus/trace/malformed_last_event_before_header.json");
  std::stringstream bytes;
  bytes << file.rdbuf();
  ASSERT_FALSE(bytes.str().empty());
  ExpectSameFailureInPlace(bytes.str(), ChunkOptions(64, true));
}

// Legacy duration pairs: a 'B' and the next 'E' of the same pid and tid are one complete event,
// nested ones closing innermost first, threads apart. Ends without a begin, begins never ended and
// ends before their begin are counted as skipped, not analysed.
TEST(ReaderTest, BeginEndPairsBecomeCompleteEvents) {
  const std::string events = R"(
    {"ph": "B", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 100},
    {"ph": "B", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 110.5},
    {"ph": "B", "cat": "cpu_op", "name": "other thread", "pid": 1, "tid": 2, "ts": 115},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 120},
    {"ph": "E", "pid": 1, "tid": 3, "ts": 121},
    {"ph": "X", "cat": "cpu_op", "name": "complete", "pid": 1, "tid": 1, "ts": 125, "dur": 1},
    {"ph": "E", "name": "outer", "pid": 1, "tid": 1, "ts": 130},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 140},
    {"ph": "B", "cat": "cpu_op", "name": "backwards", "pid": 2, "tid": 1, "ts": 200},
    {"ph": "E", "pid": 2, "tid": 1, "ts": 199},
    {"ph": "B", "cat": "cpu_op", "name": "never ended", "pid": 3, "tid": 1, "ts": 300})";
  Trace t = ParseOrDie(KinetoJson(events));
  ASSERT_EQ(t.events.size(), 4u);
  std::map<std::string, std::pair<int64_t, int64_t>> by_name;
  for (const TraceEvent& e : t.events) {
    EXPECT_EQ(e.phase, 'X');
    EXPECT_EQ(e.kind, EventKind::kCpuOp);
    by_name[std::string(t.Name(e))] = {e.ts_ns, e.dur_ns};
  }
  EXPECT_EQ(by_name["outer"], std::make_pair(int64_t{100000}, int64_t{30000}));
  EXPECT_EQ(by_name["inner"], std::make_pair(int64_t{110500}, int64_t{9500}));
  EXPECT_EQ(by_name["other thread"], std::make_pair(int64_t{115000}, int64_t{25000}));
  EXPECT_EQ(by_name["complete"], std::make_pair(int64_t{125000}, int64_t{1000}));
  // The end on tid 3, the backwards pair (2) and the begin never ended.
  EXPECT_EQ(t.skipped_events, 4);
  EXPECT_EQ(t.Name(t.events[0]), "outer");  // sorted by start
}

// A negative, NaN or unreadable duration makes an event unusable: it is skipped and counted, never
// analysed as a zero-length event.
TEST(ReaderTest, BadDurationsAreSkippedAndCounted) {
  const std::string events = R"(
    {"ph": "X", "cat": "kernel", "name": "good", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
    {"ph": "X", "cat": "kernel", "name": "negative", "pid": 1, "tid": 1, "ts": 10, "dur": -3},
    {"ph": "X", "cat": "kernel", "name": "nan", "pid": 1, "tid": 1, "ts": 20, "dur": "NaN"},
    {"ph": "X", "cat": "kernel", "name": "text", "pid": 1, "tid": 1, "ts": 30, "dur": "long"},
    {"ph": "X", "cat": "kernel", "name": "no dur", "pid": 1, "tid": 1, "ts": 40})";
  Trace t = ParseOrDie(KinetoJson(events));
  std::vector<std::string> names;
  for (const TraceEvent& e : t.events) names.emplace_back(t.Name(e));
  EXPECT_EQ(names, (std::vector<std::string>{"good", "no dur"}));
  EXPECT_EQ(t.skipped_events, 3);
}

// A pair split across chunks, with chunk guesses going wrong between them, pairs as in one chunk.
TEST(ReaderTest, BeginEndPairsAcrossChunksAndUndoneGuesses) {
  std::string events;
  const int kPairs = 600;
  for (int i = 0; i < kPairs; ++i) {
    if (i) events += ", ";
    const std::string tid = std::to_string(i % 3);
    events += R"({"ph": "B", "cat": "cpu_op", "name": "n}, {", "pid": 1, "tid": )" + tid +
              R"(, "ts": )" + std::to_string(i * 10) + R"(, "args": {"s": "}, {"}}, )";
    events += R"({"ph": "E", "pid": 1, "tid": )" + tid + R"(, "ts": )" +
              std::to_string(i * 10 + 30) + "}";
  }
  std::string json = KinetoJson(events);
  auto a = ParseTrace(json, "guess.json", ChunkOptions(200, true));
  auto b = ParseTrace(json, "exact.json", ChunkOptions(200, false));
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  // Each E follows its own B in the file, so it closes the latest begin of its thread.
  ASSERT_EQ(a->events.size(), static_cast<size_t>(kPairs));
  ExpectSameEvents(*a, *b);
  for (const TraceEvent& e : a->events) EXPECT_EQ(e.dur_ns, 30000);
  EXPECT_EQ(a->skipped_events, 0);
  EXPECT_EQ(b->skipped_events, 0);
}

TEST(ReaderTest, ReleasingParsedTextGivesTheSameEvents) {
  std::string events;
  const int kEvents = 20000;  // ~3 MB: pages are released behind the 64 KiB chunks
  for (int i = 0; i < kEvents; ++i) {
    if (i) events += ",";
    events += R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i % 7) +
              R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(i * 10) +
              R"(, "dur": 5, "args": {"stream": 7, "correlation": )" + std::to_string(i) +
              R"(, "pad": ")" + std::string(100, 'x') + "\"}}";
  }
  std::string json = KinetoJson(events, R"("displayTimeUnit": "ms")");
  auto kept = ParseTrace(json, "kept.json", 65536, false);
  auto released = ParseTrace(json, "released.json", 65536, true);
  ASSERT_TRUE(kept.ok() && released.ok());
  ASSERT_EQ(released->events.size(), static_cast<size_t>(kEvents));
  ASSERT_EQ(kept->events.size(), released->events.size());
  EXPECT_EQ(released->events.back().ts_ns, (kEvents - 1) * 10000LL);
  EXPECT_EQ(released->events.back().correlation, kEvents - 1);
  EXPECT_EQ(released->strings.size(), kept->strings.size());
}

TEST(ReaderErrorTest, TruncatedFileNamesByteOffset) {
  std::string json = KinetoJson(std::string(kKernel) + "," + kKernel);
  std::string truncated = json.substr(0, json.size() - 40);
  auto r = ParseTrace(truncated, "cut.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kParse);
  EXPECT_NE(r.error().message.find("truncated at byte " + std::to_string(truncated.size())),
            std::string::npos)
      << r.error().message;
}

TEST(ReaderErrorTest, MalformedEventNamesByteOffset) {
  std::string json = R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": }]})";
  auto r = ParseTrace(json, "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bad.json: malformed JSON at byte "), std::string::npos)
      << r.error().message;
}

TEST(ReaderErrorTest, NotATrace) {
  auto r = ParseTrace(R"({"hello": "world"})", "x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a trace"), std::string::npos) << r.error().message;
  auto scalar = ParseTrace("42", "y.json");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.error().message.find("not a trace"), std::string::npos);
  auto rows = ParseTrace("[[1, 2, 3, 4]]", "z.json");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.error().message.find("not a trace"), std::string::npos) << rows.error().message;
  auto empty = ParseTrace("", "e.json");
  ASSERT_FALSE(empty.ok());
  // Valid JSON whose traceEvents is not a list is not a trace, not malformed JSON.
  for (const char* text :
       {R"({"traceEvents": 5})", R"({"traceEvents": {"ph": "X"}})", R"({"traceEvents": null})"}) {
    auto shape = ParseTrace(text, "s.json");
    ASSERT_FALSE(shape.ok()) << text;
    EXPECT_EQ(shape.error().message,
              "s.json: not a trace: traceEvents (at byte 16) is not an array")
        << text;
  }
  auto broken = ParseTrace(R"({"traceEvents": {"ph": )", "b.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().message.find("not a trace"), std::string::npos)
      << broken.error().message;
}

TEST(ReaderErrorTest, EmptyDirectory) {
  std::string dir = TempDir("empty");
  auto r = ReadTraceRun(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no trace files"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ReaderErrorTest, CorruptAndTruncatedGzip) {
  std::string dir = TempDir("gz");
  std::string gz = Gzip(KinetoJson(kKernel));
  std::string corrupt = gz;
  for (size_t i = 12; i < corrupt.size() - 8; ++i)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  WriteFile(dir + "/corrupt.json.gz", corrupt);
  auto r = ReadTraceFile(dir + "/corrupt.json.gz");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gzip"), std::string::npos) << r.error().message;
  WriteFile(dir + "/cut.json.gz", gz.substr(0, gz.size() / 2));
  auto cut = ReadTraceFile(dir + "/cut.json.gz");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("truncated"), std::string::npos) << cut.error().message;
  WriteFile(dir + "/good.json.gz", gz);
  auto good = ReadTraceFile(dir + "/good.json.gz");
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->events.size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(ReaderTest, DirectoryIsOneRunRankedByDistributedInfoOrName) {
  std::string dir = TempDir("run");
  WriteFile(dir + "/a_rank-5.json", KinetoJson(kKernel));
  WriteFile(dir + "/b.json.gz", Gzip(KinetoJson(kKernel, R"("distributedInfo": {"rank": 2})")));
  WriteFile(dir + "/notes.txt", "not a trace");
  auto run = ReadTraceRun(dir, {.threads = 2});
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->ranks.size(), 2u);
  EXPECT_EQ(run->ranks[0].rank, 2);
  EXPECT_EQ(run->ranks[1].rank, 5);
  std::filesystem::remove_all(dir);
}

// Each event keeps its position in traceEvents (every element counted: metadata, flows, events
// without ts), whichever way the chunks are cut, and events undone by a wrong chunk guess ("}, {"
// inside a name) are not counted twice.
TEST(ReaderTest, EventsKeepTheirPositionInTheFile) {
  std::string events;
  for (int i = 0; i < 300; ++i) {
    if (!events.empty()) events += ", ";
    if (i % 7 == 3) {
      events += R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "t"}})";
    } else if (i % 11 == 5) {
      events += R"({"ph": "s", "id": 1, "pid": 1, "tid": 2, "ts": 5, "cat": "ac2g", "name": "f"})";
    } else {
      events += R"({"ph": "X", "cat": "cpu_op", "name": "op}, {)" + std::to_string(i) +
                R"(", "pid": 1, "tid": 2, "ts": )" + std::to_string(1000 - i) + R"(, "dur": 1})";
    }
  }
  const std::string json = KinetoJson(events);
  for (bool guess : {true, false}) {
    auto parsed = ParseTrace(json, "positions.json", ChunkOptions(150, guess));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const Trace& t = parsed.value();
    ASSERT_FALSE(t.events.empty());
    for (const TraceEvent& e : t.events) {
      // The name carries the position it was written at.
      EXPECT_EQ(t.Name(e), "op}, {" + std::to_string(e.file_index));
    }
  }
}

// HTA's index_correlation: a launch and its kernel point at each other's file position; a GPU
// op whose launch is not in the file gets 0, an event without a correlation -1.
TEST(ReaderTest, HtaIndexCorrelationLinksLaunchAndKernel) {
  const std::string json = KinetoJson(
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 9, "dur": 8},)"
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 10, "dur": 3, "args": {"correlation": 7}},)"
      R"({"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 20, "dur": 4, "args": {"stream": 7, "correlation": 7}},)"
      R"({"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 30, "dur": 4, "args": {"stream": 7, "correlation": 99}})");
  Trace t = ParseOrDie(json);
  ApplyHtaConvention(t, /*drop_last_profiler_step=*/false);
  std::map<std::string, std::pair<uint32_t, int32_t>> by_name;
  for (const TraceEvent& e : t.events) {
    by_name[std::string(t.Name(e))] = {e.file_index, e.hta_index_correlation};
  }
  EXPECT_EQ(by_name["cudaLaunchKernel"], std::make_pair(1u, 2));
  EXPECT_EQ(by_name["aten::mm"], std::make_pair(0u, -1));
  EXPECT_EQ(by_name["k1"], std::make_pair(2u, 1));
  EXPECT_EQ(by_name["k2"], std::make_pair(3u, 0));
}

}  // namespace
}  // namespace xpuperf::trace

#include "xpuperf/tracer/tracer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <thread>
#include <vector>

#include "trace_file.h"
#include "xpuperf/core/recorder.h"
#include "xpuperf/core/sample.h"

namespace xpuperf::tracer {
namespace {

using testing::BeginNs;
using testing::EndNs;
using testing::EventsOf;
using testing::ReadTrace;
using testing::TempTracePath;

// Busy work the compiler cannot remove, so ranges have a measurable duration.
void Spin(int n) {
  volatile uint64_t x = 0;
  for (int i = 0; i < n; ++i) x = x + static_cast<uint64_t>(i);
}

Options OptionsFor(const std::string& name) {
  Options options;
  options.path = TempTracePath(name);
  return options;
}

Summary StopOk() {
  auto summary = Stop();
  EXPECT_TRUE(summary.ok()) << (summary.ok() ? "" : summary.error().message);
  return summary.ok() ? *summary : Summary{};
}

// A relative trace path from an empty working directory (the output policy resolves it there);
// a relative path into a folder that does not exist is refused by Start, naming the folder.
TEST(TracerTest, RelativePathsFromAnEmptyWorkingDirectory) {
  const std::filesystem::path previous = std::filesystem::current_path();
  const std::filesystem::path empty =
      std::filesystem::temp_directory_path() / ("xpuperf-tracer-rel-" + std::to_string(getpid()));
  std::filesystem::remove_all(empty);
  std::filesystem::create_directories(empty);
  std::filesystem::current_path(empty);
  Options options;
  options.path = "trace.json";
  ASSERT_TRUE(Start(options).ok());
  StopOk();
  EXPECT_TRUE(std::filesystem::is_regular_file(empty / "trace.json"));
  options.path = "./again.json";
  ASSERT_TRUE(Start(options).ok());
  StopOk();
  EXPECT_TRUE(std::filesystem::is_regular_file(empty / "again.json"));
  options.path = "missing/trace.json";
  auto refused = Start(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the directory missing does not exist"), std::string::npos)
      << refused.error().message;
  std::filesystem::current_path(previous);
  std::filesystem::remove_all(empty);
}

TEST(TracerTest, NestedScopesAreNestedCompleteEvents) {
  const Options options = OptionsFor("nesting.json");
  ASSERT_TRUE(Start(options).ok());
  {
    XPUPERF_SCOPE("outer");
    Spin(1000);
    {
      XPUPERF_SCOPE("inner", "compute");
      Spin(1000);
    }
    Spin(1000);
  }
  const Summary summary = StopOk();
  EXPECT_EQ(summary.events_written, 2u);
  EXPECT_EQ(summary.dropped_events, 0u);

  const auto trace = ReadTrace(options.path);
  const auto x = EventsOf(trace, "X");
  ASSERT_EQ(x.size(), 2u);
  // Written in completion order: the inner range first.
  EXPECT_EQ(x[0]["name"], "inner");
  EXPECT_EQ(x[0]["cat"], "compute");
  EXPECT_EQ(x[1]["name"], "outer");
  EXPECT_EQ(x[1]["cat"], "cpu_op");
  EXPECT_EQ(x[0]["tid"], x[1]["tid"]);
  EXPECT_EQ(x[0]["tid"].get<int64_t>(), gettid());
  // inner lies strictly inside outer (1000 iterations of spin before and after it).
  EXPECT_GT(BeginNs(x[0]), BeginNs(x[1]));
  EXPECT_LT(EndNs(x[0]), EndNs(x[1]));
  EXPECT_GT(x[0]["dur"].get<double>(), 0.0);
  EXPECT_EQ(trace["metadata"]["events_written"], 2);
  EXPECT_EQ(trace["metadata"]["dropped_events"], 0);
  EXPECT_TRUE(trace.contains("baseTimeNanoseconds"));
  // The process is named.
  const auto m = EventsOf(trace, "M");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0]["name"], "process_name");
  EXPECT_EQ(m[0]["args"]["name"], "xpuperf");
}

TEST(TracerTest, SequentialScopesHaveIncreasingTimestamps) {
  const Options options = OptionsFor("sequence.json");
  ASSERT_TRUE(Start(options).ok());
  constexpr int kScopes = 3000;  // spans three chunks
  for (int i = 0; i < kScopes; ++i) {
    XPUPERF_SCOPE("step");
    Spin(50);
  }
  EXPECT_EQ(StopOk().events_written, static_cast<uint64_t>(kScopes));
  const auto x = EventsOf(ReadTrace(options.path), "X");
  ASSERT_EQ(x.size(), static_cast<size_t>(kScopes));
  for (size_t i = 1; i < x.size(); ++i) {
    ASSERT_GE(BeginNs(x[i]), EndNs(x[i - 1])) << "scope " << i << " overlaps the previous one";
  }
}

TEST(TracerTest, ThreadsGetTheirOwnTracksAndNames) {
  const Options options = OptionsFor("threads.json");
  ASSERT_TRUE(Start(options).ok());
  constexpr int kThreads = 4;
  constexpr int kScopes = 2500;
  std::vector<std::thread> threads;
  std::vector<int64_t> tids(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &tids] {
      tids[static_cast<size_t>(t)] = gettid();
      SetThreadName("worker-" + std::to_string(t));
      for (int i = 0; i < kScopes; ++i) {
        XPUPERF_SCOPE("work");
        { XPUPERF_SCOPE("part"); }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(StopOk().events_written, static_cast<uint64_t>(kThreads * kScopes * 2));

  const auto trace = ReadTrace(options.path);
  std::map<int64_t, std::vector<nlohmann::json>> by_tid;
  for (const auto& e : EventsOf(trace, "X")) by_tid[e["tid"].get<int64_t>()].push_back(e);
  ASSERT_EQ(by_tid.size(), static_cast<size_t>(kThreads));
  for (int64_t tid : tids) {
    const auto& events = by_tid[tid];
    ASSERT_EQ(events.size(), static_cast<size_t>(2 * kScopes));
    for (size_t i = 0; i < events.size(); i += 2) {
      // Each pair is (part, work): part nested in work; pairs follow each other in time.
      ASSERT_EQ(events[i]["name"], "part");
      ASSERT_EQ(events[i + 1]["name"], "work");
      ASSERT_GE(BeginNs(events[i]), BeginNs(events[i + 1]));
      ASSERT_LE(EndNs(events[i]), EndNs(events[i + 1]));
      if (i >= 2) {
        ASSERT_GE(BeginNs(events[i + 1]), EndNs(events[i - 1]));
      }
    }
  }
  std::map<int64_t, std::string> names;
  for (const auto& e : EventsOf(trace, "M")) {
    if (e["name"] == "thread_name") names[e["tid"].get<int64_t>()] = e["args"]["name"];
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(names[tids[static_cast<size_t>(t)]], "worker-" + std::to_string(t));
  }
}

TEST(TracerTest, CountersAndInstants) {
  const Options options = OptionsFor("counters.json");
  ASSERT_TRUE(Start(options).ok());
  for (int i = 0; i < 10; ++i) XPUPERF_COUNTER("queue_depth", i * 1.5);
  XPUPERF_COUNTER("queue_depth", std::numeric_limits<double>::quiet_NaN());  // not recorded
  XPUPERF_COUNTER("queue_depth", std::numeric_limits<double>::infinity());   // not recorded
  XPUPERF_COUNTER("bytes", uint64_t{1} << 40);
  Counter(std::string("dynamic \"counter\""), -2.25);
  Counter(std::string("dynamic nan"), std::nan(""));  // not recorded
  XPUPERF_INSTANT("checkpoint");
  XPUPERF_INSTANT("marker", "phase");
  StopOk();

  const auto trace = ReadTrace(options.path);
  const auto c = EventsOf(trace, "C");
  ASSERT_EQ(c.size(), 12u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(c[static_cast<size_t>(i)]["name"], "queue_depth");
    EXPECT_EQ(c[static_cast<size_t>(i)]["args"]["value"].get<double>(), i * 1.5);
    if (i > 0) {
      EXPECT_GE(BeginNs(c[static_cast<size_t>(i)]), BeginNs(c[static_cast<size_t>(i - 1)]));
    }
  }
  EXPECT_EQ(c[10]["name"], "bytes");
  EXPECT_EQ(c[10]["args"]["value"].get<double>(), 1099511627776.0);
  EXPECT_EQ(c[11]["name"], "dynamic \"counter\"");
  EXPECT_EQ(c[11]["args"]["value"].get<double>(), -2.25);
  const auto instants = EventsOf(trace, "i");
  ASSERT_EQ(instants.size(), 2u);
  EXPECT_EQ(instants[0]["name"], "checkpoint");
  EXPECT_EQ(instants[0]["cat"], "cpu_op");
  EXPECT_EQ(instants[1]["name"], "marker");
  EXPECT_EQ(instants[1]["cat"], "phase");
}

TEST(TracerTest, NothingIsRecordedWhileDisabled) {
  EXPECT_FALSE(Enabled());
  for (int i = 0; i < 100; ++i) {
    XPUPERF_SCOPE("before");
    XPUPERF_SCOPE_DYNAMIC("dynamic before");
    XPUPERF_COUNTER("before_counter", i);
    XPUPERF_INSTANT("before_instant");
    BeginRange("before_range");
    EndRange();
  }
  const Options options = OptionsFor("disabled.json");
  ASSERT_TRUE(Start(options).ok());
  EXPECT_TRUE(Enabled());
  { XPUPERF_SCOPE("during"); }
  EXPECT_EQ(StopOk().events_written, 1u);
  EXPECT_FALSE(Enabled());
  { XPUPERF_SCOPE("after"); }
  const auto trace = ReadTrace(options.path);
  size_t non_metadata = 0;
  for (const auto& e : trace["traceEvents"]) non_metadata += e["ph"] != "M";
  EXPECT_EQ(non_metadata, 1u);
  EXPECT_EQ(EventsOf(trace, "X").at(0)["name"], "during");
}

TEST(TracerTest, ScopeOpenAcrossStopIsNotWrittenToTheNextSession) {
  const Options first = OptionsFor("first.json");
  const Options second = OptionsFor("second.json");
  ASSERT_TRUE(Start(first).ok());
  {
    XPUPERF_SCOPE("spans_stop");
    StopOk();
    ASSERT_TRUE(Start(second).ok());
  }
  { XPUPERF_SCOPE("in_second"); }
  StopOk();
  EXPECT_TRUE(EventsOf(ReadTrace(first.path), "X").empty());
  const auto x = EventsOf(ReadTrace(second.path), "X");
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0]["name"], "in_second");
}

TEST(TracerTest, StopRenamesACompleteFileIntoPlace) {
  const Options options = OptionsFor("atomic.json");
  std::filesystem::remove(options.path);
  ASSERT_TRUE(Start(options).ok());
  { XPUPERF_SCOPE("flushed"); }
  ASSERT_TRUE(Flush().ok());
  // Flushed events sit in the temporary file; the final name does not exist yet.
  EXPECT_FALSE(std::filesystem::exists(options.path));
  const std::filesystem::path target(options.path);
  std::string temp;
  for (const auto& entry : std::filesystem::directory_iterator(target.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("." + target.filename().string() + ".tmp-", 0) == 0) temp = entry.path();
  }
  ASSERT_FALSE(temp.empty());
  EXPECT_NE(testing::ReadText(temp).find("\"name\":\"flushed\""), std::string::npos);
  StopOk();
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_EQ(EventsOf(ReadTrace(options.path), "X").size(), 1u);
}

TEST(TracerTest, ErrorsAreValues) {
  auto stopped = Stop();
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(Flush().ok());

  Options no_path;
  no_path.path.clear();
  EXPECT_EQ(Start(no_path).error().code, ErrorCode::kInvalidArgument);
  Options bad_dir;
  bad_dir.path = "/nonexistent-xpuperf-dir/trace.json";
  const Status bad = Start(bad_dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kIo);
  EXPECT_FALSE(Enabled());

  const Options options = OptionsFor("twice.json");
  ASSERT_TRUE(Start(options).ok());
  const Status again = Start(options);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kInvalidArgument);
  StopOk();
}

TEST(TracerTest, EventsBeyondTheMemoryBoundAreDroppedAndCounted) {
  Options options = OptionsFor("dropped.json");
  options.max_pending_bytes = 1;  // one handed-off chunk at most
  options.flush_interval_ms = 10'000;
  ASSERT_TRUE(Start(options).ok());
  constexpr uint64_t kScopes = 100'000;
  for (uint64_t i = 0; i < kScopes; ++i) {
    XPUPERF_SCOPE("flood");
  }
  const Summary summary = StopOk();
  // Writing an event costs the flusher far more than recording it, and it holds at most one
  // chunk (1024 events) of slack: most of the flood is dropped, and every event is accounted for.
  EXPECT_GT(summary.dropped_events, 0u);
  EXPECT_EQ(summary.events_written + summary.dropped_events, kScopes);
  EXPECT_EQ(DroppedEvents(), summary.dropped_events);
  const auto trace = ReadTrace(options.path);
  EXPECT_EQ(EventsOf(trace, "X").size(), summary.events_written);
  EXPECT_EQ(trace["metadata"]["dropped_events"].get<uint64_t>(), summary.dropped_events);
}

TEST(TracerTest, DynamicNamesAreEscaped) {
  const Options options = OptionsFor("escaping.json");
  ASSERT_TRUE(Start(options).ok());
  const std::vector<std::string> names = {
      "say \"hi\"",       "C:\\path\\to", std::string("nul\0byte", 8), "tab\tnew\nline\r",
      "bell\x07 esc\x1b", "caf\xc3\xa9",  "\xe6\x97\xa5\xe6\x9c\xac",  "emoji \xf0\x9f\x99\x82",
      "del\x7f",          "</script>",
  };
  for (const auto& name : names) {
    XPUPERF_SCOPE_DYNAMIC(name);
  }
  { XPUPERF_SCOPE_DYNAMIC(std::string("bad \xff\xfe utf8"), "dyn\"cat"); }
  {
    XPUPERF_SCOPE_DYNAMIC(std::string("cut \xe6\x97"));  // a truncated 3-byte character
  }
  std::string long_name;
  for (int i = 0; i < 3000; ++i) long_name += "\xc3\xa9";  // 6000 bytes
  { XPUPERF_SCOPE_DYNAMIC(long_name); }
  Instant(std::string("instant \"q\""));
  BeginRange("outer range");
  BeginRange("inner range", "ranges");
  EndRange();
  EndRange();
  EndRange();  // unmatched: ignored
  StopOk();

  const auto trace = ReadTrace(options.path);
  const auto x = EventsOf(trace, "X");
  ASSERT_EQ(x.size(), names.size() + 5);
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(x[i]["name"], names[i]) << i;
  EXPECT_EQ(x[names.size()]["name"], "bad \xef\xbf\xbd\xef\xbf\xbd utf8");
  EXPECT_EQ(x[names.size()]["cat"], "dyn\"cat");
  EXPECT_EQ(x[names.size() + 1]["name"], "cut \xef\xbf\xbd\xef\xbf\xbd");
  // Cut to at most 4000 bytes at a character boundary: 2000 two-byte characters.
  EXPECT_EQ(x[names.size() + 2]["name"], long_name.substr(0, 4000));
  EXPECT_EQ(x[names.size() + 3]["name"], "inner range");
  EXPECT_EQ(x[names.size() + 3]["cat"], "ranges");
  EXPECT_EQ(x[names.size() + 4]["name"], "outer range");
  EXPECT_EQ(EventsOf(trace, "i").at(0)["name"], "instant \"q\"");
  // The raw text escapes control characters.
  const std::string text = testing::ReadText(options.path);
  EXPECT_NE(text.find(R"(tab\tnew\nline\r)"), std::string::npos);
  EXPECT_NE(text.find(R"(nul\u0000byte)"), std::string::npos);
  EXPECT_NE(text.find(R"(bell\u0007 esc\u001b)"), std::string::npos);
}

TEST(TracerTest, RangesFeedTheOpExecutionTimeDistribution) {
  Options options = OptionsFor("recorder.json");
  options.record_op_distribution = true;
  options.device = "tracer_test_device";
  ASSERT_TRUE(Start(options).ok());
  for (int i = 0; i < 10; ++i) {
    XPUPERF_SCOPE("recorded_op");
    Spin(100);
  }
  for (int i = 0; i < 3; ++i) {
    XPUPERF_SCOPE_DYNAMIC(std::string("dynamic_op"));
  }
  StopOk();
  // A session without the flag records nothing into the recorder.
  Options plain = OptionsFor("not_recorded.json");
  plain.device = "tracer_test_device";
  ASSERT_TRUE(Start(plain).ok());
  { XPUPERF_SCOPE("recorded_op"); }
  StopOk();

  std::map<std::string, uint64_t> counts;
  for (const Reading& reading : Recorder::Global().Snapshot("tracer_test_device", 0)) {
    if (reading.metric != "op_execution_time_seconds") continue;
    for (const Sample& sample : reading.samples) {
      counts[std::string(sample.labels.Get("op"))] = sample.distribution().count;
    }
  }
  EXPECT_EQ(counts["recorded_op"], 10u);
  EXPECT_EQ(counts["dynamic_op"], 3u);
}

}  // namespace
}  // namespace xpuperf::tracer

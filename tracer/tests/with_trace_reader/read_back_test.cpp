// The tracer's output read back by xpuperf's own trace reader (what `xpuperf analyze` uses).
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "../trace_file.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::tracer {
namespace {

TEST(TracerReadBackTest, TraceReaderReadsTheTracerOutput) {
  Options options;
  options.path = testing::TempTracePath("read_back.json");
  ASSERT_TRUE(Start(options).ok());
  auto work = [] {
    for (int i = 0; i < 1500; ++i) {
      XPUPERF_SCOPE("step", "user_annotation");
      { XPUPERF_SCOPE("aten::mm"); }  // the default category, cpu_op
      XPUPERF_SCOPE_DYNAMIC("layer \"" + std::to_string(i % 3) + "\"");
    }
  };
  std::thread other(work);
  work();
  other.join();
  XPUPERF_COUNTER("queue", 3);
  XPUPERF_INSTANT("done");
  ASSERT_TRUE(Stop().ok());

  auto trace = trace::ReadTraceFile(options.path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  size_t steps = 0, mm = 0, layers = 0, instants = 0;
  for (const trace::TraceEvent& e : trace->events) {
    const std::string_view name = trace->Name(e);
    if (name == "step") {
      ++steps;
      EXPECT_EQ(e.kind, trace::EventKind::kUserAnnotation);
    } else if (name == "aten::mm") {
      ++mm;
      EXPECT_EQ(e.kind, trace::EventKind::kCpuOp);
    } else if (name.rfind("layer \"", 0) == 0) {
      ++layers;
    } else if (name == "done") {
      ++instants;
    }
  }
  EXPECT_EQ(steps, 3000u);
  EXPECT_EQ(mm, 3000u);
  EXPECT_EQ(layers, 3000u);
  EXPECT_EQ(instants, 1u);
  EXPECT_TRUE(std::is_sorted(trace->events.begin(), trace->events.end(),
                             [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; }));
  EXPECT_EQ(trace->display_time_unit, "ns");
  EXPECT_GT(trace->base_time_ns, 0);
}

}  // namespace
}  // namespace xpuperf::tracer

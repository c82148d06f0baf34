// A trace written by xpuperf's own tracer reads back and analyses like a profiler's.
#include <gtest/gtest.h>

#ifdef XPUPERF_HAVE_TRACER
#include <unistd.h>

#include <filesystem>

#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::trace {
namespace {

TEST(TracerRoundTripTest, NestedScopesBecomeCpuOpsWithExclusiveTime) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("xpuperf_roundtrip_" + std::to_string(::getpid()) + ".json"))
                         .string();
  tracer::Options options;
  options.path = path;
  ASSERT_TRUE(tracer::Start(options).ok());
  {
    XPUPERF_SCOPE("outer");
    for (int i = 0; i < 3; ++i) {
      XPUPERF_SCOPE("inner");
      volatile double x = 0;
      for (int k = 0; k < 20000; ++k) x = x + k;
    }
  }
  auto summary = tracer::Stop();
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  auto trace = ReadTraceFile(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  OperatorBreakdown ops = ComputeOperatorBreakdown(*trace);
  const OperatorStat* outer = nullptr;
  const OperatorStat* inner = nullptr;
  for (const auto& op : ops.by_name) {
    if (op.name == "outer") outer = &op;
    if (op.name == "inner") inner = &op;
  }
  ASSERT_TRUE(outer && inner);
  EXPECT_EQ(outer->count, 1);
  EXPECT_EQ(inner->count, 3);
  // outer's exclusive time is what the three inner ranges leave of it.
  EXPECT_EQ(outer->exclusive_ns, outer->inclusive_ns - inner->inclusive_ns);
}

}  // namespace
}  // namespace xpuperf::trace
#endif

// The columns of HTA's frame that ApplyHtaConvention records for xpuperf.hta (Trace::hta_*): each
// row's iteration by HTA's add_iteration, the ranges of the integer columns, and HTA's symbols.
// python/tests/test_hta_analyses.py compares the frames they make with HTA itself; these pin the
// rules where HTA's environment is not installed.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "trace_test_util.h"
#include "xpuperf/trace/hta_convention.h"

namespace xpuperf::trace {
namespace {

using testing::KinetoJson;
using testing::ParseOrDie;

// Iteration by name (each name once in these traces).
std::map<std::string, int32_t> IterationsByName(const Trace& t) {
  std::map<std::string, int32_t> out;
  for (const TraceEvent& e : t.events) {
    out[std::string(t.Name(e))] =
        e.file_index < t.hta_iterations.size() ? t.hta_iterations[e.file_index] : -2;
  }
  return out;
}

std::vector<std::string> Texts(const Trace& t, const std::vector<uint32_t>& ids) {
  std::vector<std::string> out;
  for (uint32_t id : ids) out.emplace_back(t.strings.Get(id));
  return out;
}

TEST(HtaFrameColumnsTest, IterationsFollowStepsAndLaunches) {
  const std::string json = KinetoJson(
      // 0..1: two steps; "ProfilerStep # 7" is read as 7 (spaces allowed around '#').
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 100, "dur": 100},)"
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep # 7", "pid": 1, "tid": 1, "ts": 200, "dur": 100},)"
      // 2: before any step; 3: in step 3; 4: at step 7's start (ts < start + dur, start <= ts).
      R"({"ph": "X", "cat": "cpu_op", "name": "early", "pid": 1, "tid": 1, "ts": 50, "dur": 5},)"
      R"({"ph": "X", "cat": "cuda_runtime", "name": "launch3", "pid": 1, "tid": 1, "ts": 150, "dur": 5, "args": {"correlation": 11}},)"
      R"({"ph": "X", "cat": "cuda_runtime", "name": "launch7", "pid": 1, "tid": 1, "ts": 200, "dur": 5, "args": {"correlation": 12}},)"
      // 5, 6: kernels on stream 7 take their launch's iteration, even when they run later.
      R"({"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 250, "dur": 5, "args": {"stream": 7, "correlation": 11}},)"
      R"({"ph": "X", "cat": "kernel", "name": "k7", "pid": 0, "tid": 7, "ts": 400, "dur": 5, "args": {"stream": 7, "correlation": 12}},)"
      // 7: a kernel whose launch is not in the file (index_correlation 0): -1.
      R"({"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": 410, "dur": 5, "args": {"stream": 7, "correlation": 99}})");
  Trace t = ParseOrDie(json);
  ApplyHtaConvention(t, /*drop_last_profiler_step=*/false);
  const auto iterations = IterationsByName(t);
  EXPECT_EQ(iterations.at("ProfilerStep#3"), 3);
  EXPECT_EQ(iterations.at("ProfilerStep # 7"), 7);
  EXPECT_EQ(iterations.at("early"), -1);
  EXPECT_EQ(iterations.at("launch3"), 3);
  EXPECT_EQ(iterations.at("launch7"), 7);
  EXPECT_EQ(iterations.at("k3"), 3);
  EXPECT_EQ(iterations.at("k7"), 7);
  EXPECT_EQ(iterations.at("orphan"), -1);
  EXPECT_FALSE(t.hta_iteration_nan);
  EXPECT_EQ(t.hta_iteration.min, -1);
  EXPECT_EQ(t.hta_iteration.max, 7);
  // Ranges over the rows HTA keeps; defaults -1 where an argument is absent.
  EXPECT_EQ(t.hta_bytes.min, -1);
  EXPECT_EQ(t.hta_bytes.max, -1);
  EXPECT_EQ(t.hta_wait_on_stream.max, -1);
  EXPECT_EQ(t.hta_index_correlation.min, -1);
  EXPECT_EQ(t.hta_index_correlation.max, 6);  // launch7 -> k7 at position 6
  // HTA's symbols: the categories, then the names, each in order of first appearance in the file.
  EXPECT_EQ(Texts(t, t.hta_symbol_categories),
            (std::vector<std::string>{"user_annotation", "cpu_op", "cuda_runtime", "kernel"}));
  EXPECT_EQ(Texts(t, t.hta_symbol_names),
            (std::vector<std::string>{"ProfilerStep#3", "ProfilerStep # 7", "early", "launch3",
                                      "launch7", "k3", "k7", "orphan"}));
}

TEST(HtaFrameColumnsTest, OverlappingStepsTakeTheLastInFileOrderAndStreamZeroIsNaN) {
  const std::string json = KinetoJson(
      // An outer step written after an inner one that it contains: for a row in both, the one
      // later in the file wins (HTA loops over the steps in frame order).
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 120, "dur": 20},)"
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 100},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 125, "dur": 5},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 150, "dur": 5},)"
      // A GPU op on stream 0 (AMD's default stream): no iteration, and the column becomes float.
      R"({"ph": "X", "cat": "cuda_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 160, "dur": 2, "args": {"correlation": 5}},)"
      R"({"ph": "X", "cat": "kernel", "name": "k0", "pid": 0, "tid": 0, "ts": 170, "dur": 5, "args": {"stream": 0, "correlation": 5, "bytes": 4096}},)"
      // A CUDA event wait with its wait_on_* arguments (Kineto's cuda_sync).
      R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 3, "ts": 180, "dur": 1, "args": {"stream": 3, "correlation": 6, "wait_on_stream": 2, "wait_on_cuda_event_record_corr_id": 40}})");
  Trace t = ParseOrDie(json);
  ApplyHtaConvention(t, /*drop_last_profiler_step=*/false);
  const auto iterations = IterationsByName(t);
  EXPECT_EQ(iterations.at("inner"), 1);  // in both: #1 comes later in the file
  EXPECT_EQ(iterations.at("outer"), 1);
  EXPECT_EQ(iterations.at("k0"), kHtaNoIteration);
  EXPECT_TRUE(t.hta_iteration_nan);
  EXPECT_EQ(t.hta_bytes.max, 4096);
  EXPECT_EQ(t.hta_wait_on_stream.max, 2);
  EXPECT_EQ(t.hta_wait_on_event.max, 40);
  EXPECT_EQ(t.hta_wait_on_event.min, -1);
}

}  // namespace
}  // namespace xpuperf::trace

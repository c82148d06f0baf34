// Model FLOPs from recorded shapes and MFU (model_flops.h, analysis_mfu.cpp). The formulas are
// refereed against PyTorch's own counter on real traces by mfu_referee.py; these tests pin each
// rule on small synthetic traces.
#include "xpuperf/trace/model_flops.h"

#include <gtest/gtest.h>

#include "trace_test_util.h"
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::trace {
namespace {

using testing::KinetoJson;
using testing::ParseOrDie;

const TraceEvent& Named(const Trace& t, std::string_view name) {
  for (const TraceEvent& e : t.events) {
    if (t.Name(e) == name) return e;
  }
  ADD_FAILURE() << "no event " << name;
  static const TraceEvent kNone;
  return kNone;
}

TEST(ModelFlopsTest, ConcreteInputsAreKeptForConvolutionsOnly) {
  Trace t = ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
     "args": {"Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"],
              "Input Dims": [[4, 3, 16, 16], [8, 3, 3, 3], [8], [], [], [], [], [], []]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution_backward", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
     "args": {"Input Dims": [[4, 8, 8, 8], [4, 3, 16, 16], [8, 3, 3, 3], [], [], [], [], [], [], [], []],
              "Concrete Inputs": ["", "", "", "[8]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[False, True, True]"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
     "args": {"Input Dims": [[2, 3], [3, 4]], "Concrete Inputs": ["", ""]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 30, "dur": 5,
     "args": {"Input Dims": [[1, 1, 4, 4], [1, 1, 3, 3], []], "Concrete Inputs": ["", "", "", "same"]}})"));
  const TraceEvent& conv = Named(t, "aten::convolution");
  EXPECT_EQ(t.InputDims(conv)[1], (std::vector<int64_t>{8, 3, 3, 3}));
  const auto concrete = t.ConcreteInputs(conv);
  ASSERT_EQ(concrete.size(), 9u);
  EXPECT_TRUE(concrete[0].empty());
  EXPECT_EQ(concrete[3], (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(concrete[6], (std::vector<int64_t>{0}));  // False
  EXPECT_EQ(concrete[8], (std::vector<int64_t>{1}));
  EXPECT_EQ(t.ConcreteInputs(Named(t, "aten::convolution_backward"))[10],
            (std::vector<int64_t>{0, 1, 1}));
  // A matrix product keeps its dims, not its Concrete Inputs; conv2d is not a counted op.
  EXPECT_EQ(t.InputDims(Named(t, "aten::mm")).size(), 2u);
  EXPECT_TRUE(t.ConcreteInputs(Named(t, "aten::mm")).empty());
  EXPECT_LT(Named(t, "aten::conv2d").input_dims, 0);
}

TEST(ModelFlopsTest, ConvolutionFlopsFollowStridePaddingAndDilation) {
  Trace t = ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
     "args": {"Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"],
              "Input Dims": [[4, 3, 16, 16], [8, 3, 3, 3], [8], [], [], [], [], [], []]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 2, "ts": 0, "dur": 5,
     "args": {"Concrete Inputs": ["", "", "", "[1]", "[0]", "[2]", "False", "[0]", "2"],
              "Input Dims": [[2, 4, 10], [6, 2, 3], [], [], [], [], [], [], []]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 3, "ts": 0, "dur": 5,
     "args": {"Concrete Inputs": ["", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"],
              "Input Dims": [[1, 4, 5, 5], [4, 2, 3, 3], [], [], [], [], [], [], []]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution_backward", "pid": 1, "tid": 4, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[4, 8, 8, 8], [4, 3, 16, 16], [8, 3, 3, 3], [], [], [], [], [], [], [], []],
              "Concrete Inputs": ["", "", "", "[8]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[False, True, True]"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution_backward", "pid": 1, "tid": 5, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[4, 8, 8, 8], [4, 3, 16, 16], [8, 3, 3, 3], [], [], [], [], [], [], [], []],
              "Concrete Inputs": ["", "", "", "[8]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, False, False]"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 6, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[4, 3, 16, 16], [8, 3, 3, 3], [8], [], [], [], [], [], []]}})"));
  std::vector<double> flops;
  for (const TraceEvent& e : t.events) flops.push_back(OpFlops(t, e));
  ASSERT_EQ(flops.size(), 6u);
  // 16x16, kernel 3, stride 2, padding 1: 8x8 outputs; 2·N·HoWo·O·C·k².
  EXPECT_DOUBLE_EQ(flops[0], 2.0 * 4 * 64 * 8 * 3 * 9);
  // 1-D, 10 long, kernel 3, dilation 2, groups 2: (10 - 4 - 1) + 1 = 6 outputs, C/g = 2.
  EXPECT_DOUBLE_EQ(flops[1], 2.0 * 2 * 6 * 6 * 2 * 3);
  // Transposed: per input position (5x5), weight [C_in, C_out/g, k, k].
  EXPECT_DOUBLE_EQ(flops[2], 2.0 * 1 * 25 * 4 * 2 * 9);
  // Backward: the forward's FLOPs per gradient asked for (weight only; input only).
  EXPECT_DOUBLE_EQ(flops[3], 2.0 * 4 * 64 * 8 * 3 * 9);
  EXPECT_DOUBLE_EQ(flops[4], 2.0 * 4 * 64 * 8 * 3 * 9);
  // No Concrete Inputs (PyTorch < 2.1): the output size is unknown.
  EXPECT_EQ(flops[5], -1);
}

TEST(ModelFlopsTest, AttentionAndMatrixProducts) {
  Trace t = ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::scaled_dot_product_attention", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[2, 4, 128, 64], [2, 4, 256, 64], [2, 4, 256, 32], [], [], [], [], []]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_scaled_dot_product_flash_attention_backward", "pid": 1, "tid": 2, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[2, 4, 128, 32], [2, 4, 128, 64], [2, 4, 256, 64], [2, 4, 256, 32], [2, 4, 128, 32], [2, 4, 128]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 3, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[8, 16, 512], [1024, 512], [1024]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 4, "ts": 0, "dur": 5,
     "args": {"Input Dims": [[3, 5, 7], [7, 11]]}})"));
  EXPECT_DOUBLE_EQ(OpFlops(t, t.events[0]), 2.0 * 2 * 4 * 128 * 256 * (64 + 32));
  EXPECT_DOUBLE_EQ(OpFlops(t, t.events[1]), 2.0 * 2 * 4 * 128 * 256 * (3 * 64 + 2 * 32));
  EXPECT_DOUBLE_EQ(OpFlops(t, t.events[2]), 2.0 * 8 * 16 * 1024 * 512);
  EXPECT_DOUBLE_EQ(OpFlops(t, t.events[3]), 2.0 * 3 * 5 * 11 * 7);
  EXPECT_EQ(FlopOpOf("aten::scaled_dot_product_attention_backward"), FlopOp::kNone);
  EXPECT_EQ(FlopOpOf("aten::_scaled_dot_product_efficient_attention_backward"),
            FlopOp::kAttentionBackward);
}

// Two steps; in each an aten::linear holding an aten::addmm (counted once), the second step's
// linear without shapes although its addmm has them (counted through the addmm, not "missing"),
// an mm without shapes (missing), and a bf16 matmul on a tensor-core kernel.
constexpr const char* kGpuSteps = R"(
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 50,
     "args": {"External id": 1, "Input Dims": [[64, 512], [256, 512], [256]], "Input type": ["float", "float", "float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 12, "dur": 40,
     "args": {"External id": 2, "Input Dims": [[256], [64, 512], [512, 256], [], []], "Input type": ["float", "float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 14, "dur": 5, "args": {"correlation": 9, "External id": 2}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": 100, "dur": 50, "args": {"stream": 7, "correlation": 9, "External id": 2}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 200, "dur": 50, "args": {"External id": 3}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#8", "pid": 1, "tid": 1, "ts": 1000, "dur": 2000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 1010, "dur": 50, "args": {"External id": 4}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 1012, "dur": 40,
     "args": {"External id": 5, "Input Dims": [[256], [64, 512], [512, 256], [], []], "Input type": ["float", "float", "float"]}},
    {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_f32f32_tf32f32_f32_tn", "pid": 0, "tid": 7, "ts": 1100, "dur": 50, "args": {"stream": 7, "External id": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 1, "ts": 1200, "dur": 50,
     "args": {"External id": 6, "Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1205, "dur": 40, "args": {"External id": 7}},
    {"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn", "pid": 0, "tid": 7, "ts": 1300, "dur": 50, "args": {"stream": 7, "External id": 7}}
)";

TEST(ModelFlopsTest, StepsCountTheOutermostOpOnceAndNameWhatIsMissing) {
  Trace t = ParseOrDie(KinetoJson(kGpuSteps));
  const ModelFlops m = ComputeModelFlops(t);
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_FALSE(m.whole_trace);
  const double linear = 2.0 * 64 * 256 * 512;
  const double square = 2.0 * 1024 * 1024 * 1024;
  EXPECT_EQ(m.steps[0].name, "ProfilerStep#7");
  EXPECT_EQ(m.steps[0].dur_ns, 1000000);
  EXPECT_EQ(m.steps[0].flops, (std::map<std::string, double>{{"fp32", linear}}));
  // The float addmm of step 8 ran on a tensor-core (tf32) kernel; the matmul is bf16.
  EXPECT_EQ(m.steps[1].flops, (std::map<std::string, double>{{"bf16", square}, {"tf32", linear}}));
  EXPECT_EQ(m.counted_ops, 3);
  EXPECT_EQ(m.ops_without_shapes, 1);  // step 7's mm; not step 8's linear, whose addmm counted
  EXPECT_EQ(m.ops_with_unusable_shapes, 0);
  EXPECT_DOUBLE_EQ(m.matrix_product_flops, 2 * linear + square);
}

TEST(ModelFlopsTest, ATraceWithoutStepsIsOneStepOverItsSpan) {
  Trace t = ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
     "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["double", "double"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 200, "dur": 300})"));
  const ModelFlops m = ComputeModelFlops(t);
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_TRUE(m.whole_trace);
  EXPECT_EQ(m.steps[0].begin_ns, 100000);
  EXPECT_EQ(m.steps[0].dur_ns, 400000);
  EXPECT_EQ(m.flops_by_precision, (std::map<std::string, double>{{"fp64", 2.0 * 2 * 3 * 4}}));
}

TEST(ModelFlopsTest, PeakForNamesAWiderPrecisionItFallsBackTo) {
  PeakFlops peaks;
  peaks.per_precision = {
      {"fp64", 9.7e12}, {"fp64_tensor", 19.5e12}, {"fp32", 19.5e12}, {"fp16", 312e12}};
  std::string used;
  EXPECT_EQ(PeakFor(peaks, "bf16", &used), 312e12);
  EXPECT_EQ(used, "fp16 (no bf16 peak)");
  EXPECT_EQ(PeakFor(peaks, "fp64", &used), 19.5e12);
  EXPECT_EQ(used, "fp64_tensor");
  EXPECT_EQ(PeakFor(peaks, "tf32", &used), 0);  // never judged against plain fp32
  EXPECT_EQ(PeakFor(peaks, "fp32", &used), 19.5e12);
  EXPECT_EQ(used, "fp32");
}

const AnalysisOutput& MfuOutput(const RunReport& report) {
  const auto& registered = RegisteredAnalyses();
  for (size_t a = 0; a < registered.size(); ++a) {
    if (registered[a]->name == "mfu") return report.ranks.at(0).outputs.at(a);
  }
  ADD_FAILURE() << "no mfu analysis";
  static const AnalysisOutput kNone;
  return kNone;
}

const Cell* FieldOf(const AnalysisOutput& output, std::string_view key) {
  for (const Field& f : output.fields) {
    if (f.json_key == key) return &f.value;
  }
  return nullptr;
}

TEST(ModelFlopsTest, MfuDividesTimeAtPeakByStepTime) {
  TraceRun run;
  run.ranks.push_back(ParseOrDie(KinetoJson(kGpuSteps)));
  PeakFlops peaks;
  peaks.source = "test sheet";
  peaks.per_precision = {{"fp32", 20e12}, {"tf32", 150e12}, {"bf16", 300e12}};
  const RunReport report = AnalyzeRun(run, 10, {}, {"mfu"}, &peaks);
  const AnalysisOutput& out = MfuOutput(report);
  const double linear = 2.0 * 64 * 256 * 512;
  const double square = 2.0 * 1024 * 1024 * 1024;
  const double at_peak = linear / 20e12 + linear / 150e12 + square / 300e12;
  const Cell* mfu = FieldOf(out, "mfu");
  ASSERT_NE(mfu, nullptr);
  EXPECT_DOUBLE_EQ(mfu->number, at_peak / 3e-3);  // steps of 1 ms and 2 ms
  ASSERT_EQ(out.tables.at(0).rows.size(), 3u);    // two steps and "all steps"
  EXPECT_DOUBLE_EQ(out.tables[0].rows[1].back().number, (linear / 150e12 + square / 300e12) / 2e-3);
  EXPECT_EQ(FieldOf(out, "peak_source")->text, "test sheet");
  EXPECT_EQ(FieldOf(out, "ops_without_shapes")->integer, 1);
  bool hint = false;
  for (const std::string& note : out.notes) {
    hint = hint || note.find("record_shapes=True") != std::string::npos;
  }
  EXPECT_TRUE(hint);

  // Without peaks: the FLOPs and the reason, no MFU.
  PeakFlops none;
  none.unavailable = "no shipped spec sheet for 'X'";
  const RunReport without_report = AnalyzeRun(run, 10, {}, {"mfu"}, &none);
  const AnalysisOutput& without = MfuOutput(without_report);
  EXPECT_EQ(FieldOf(without, "mfu"), nullptr);
  EXPECT_EQ(FieldOf(without, "mfu_unavailable")->text, "no shipped spec sheet for 'X'");
  EXPECT_DOUBLE_EQ(FieldOf(without, "model_flops")->number, 2 * linear + square);

  // A precision the sheet has no peak for (nor a wider one): no MFU, and why.
  PeakFlops fp32_only;
  fp32_only.per_precision = {{"fp32", 20e12}};
  const RunReport partial_report = AnalyzeRun(run, 10, {}, {"mfu"}, &fp32_only);
  const AnalysisOutput& partial = MfuOutput(partial_report);
  EXPECT_EQ(FieldOf(partial, "mfu"), nullptr);
  EXPECT_NE(FieldOf(partial, "mfu_unavailable")->text.find("tf32"), std::string::npos);
}

TEST(ModelFlopsTest, NoModelArithmeticMeansNoMfuSection) {
  TraceRun run;
  run.ranks.push_back(ParseOrDie(KinetoJson(R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 0, "dur": 5})")));
  const RunReport report = AnalyzeRun(run, 10, {}, {"mfu"});
  EXPECT_FALSE(MfuOutput(report).HasRows());
}

}  // namespace
}  // namespace xpuperf::trace

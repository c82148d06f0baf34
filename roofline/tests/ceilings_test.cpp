#include "xpuperf/roofline/ceilings.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace xpuperf::roofline {
namespace {

using testing::CpuCeilings;
using testing::CpuResults;
using testing::DataPath;

TEST(BenchResults, ReadsRecordsAndEnvironment) {
  const BenchResults results = CpuResults();
  EXPECT_EQ(results.records.size(), 24u);
  EXPECT_EQ(results.run_id, "20261130T120000Z-fixture-host");
  EXPECT_EQ(results.backend, "cpu");
  EXPECT_EQ(results.device_model, "Fixture CPU");
  EXPECT_EQ(results.device_memory_bytes, 32e9);
  ASSERT_EQ(results.skipped.size(), 1u);
}

TEST(BenchResults, MissingDirectoryAndBadLinesAreErrors) {
  EXPECT_EQ(ReadBenchResults(DataPath("no-such-dir")).error().code, ErrorCode::kNotFound);
  const auto bad = ParseBenchResults("{\"benchmark\":\"x\"}\n", "", "dir");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("dir/results.jsonl:1"), std::string::npos);
  EXPECT_FALSE(ParseBenchResults("not json\n", "", "dir").ok());
  EXPECT_FALSE(ParseBenchResults("", "", "dir").ok());
}

TEST(Ceilings, ComputePerPrecisionFromPeakAndBestGemm) {
  const Ceilings c = CpuCeilings();
  const Ceiling* fp64 = c.Compute("fp64");
  ASSERT_NE(fp64, nullptr);
  EXPECT_EQ(fp64->variant, "peak");
  EXPECT_EQ(fp64->value, 100e9);
  EXPECT_EQ(fp64->recorded_value, 100.0);
  EXPECT_EQ(fp64->recorded_unit, "GFLOP/s");
  EXPECT_EQ(fp64->Label(), "fp64 peak");
  int fp32_gemm = 0;
  for (const Ceiling& ceiling : c.all) {
    if (ceiling.kind == CeilingKind::kCompute && ceiling.scope == "fp32" &&
        ceiling.variant == "gemm") {
      ++fp32_gemm;
      EXPECT_EQ(ceiling.value, 170e9);  // the better of the two shapes
      EXPECT_EQ(ceiling.Label(), "fp32 GEMM");
    }
  }
  EXPECT_EQ(fp32_gemm, 1);
  EXPECT_EQ(c.Compute("bf16"), nullptr);  // the attention record is not a ceiling
  EXPECT_EQ(c.FastestCompute()->value, 200e9);
  // A GEMM above the measured peak (a disturbed peak run) becomes the roof.
  Ceilings disturbed = c;
  for (Ceiling& ceiling : disturbed.all) {
    if (ceiling.scope == "fp32" && ceiling.variant == "peak") ceiling.value = 100e9;
  }
  EXPECT_EQ(disturbed.Compute("fp32")->variant, "gemm");
  EXPECT_EQ(disturbed.Compute("fp32")->value, 170e9);
}

TEST(Ceilings, MemoryLevelsFromPlateausAndDramFromStreamTriad) {
  const Ceilings c = CpuCeilings();
  ASSERT_NE(c.Memory("L1"), nullptr);
  EXPECT_EQ(c.Memory("L1")->value, 400e9);
  EXPECT_EQ(c.Memory("L2")->value, 200e9);
  EXPECT_EQ(c.Memory("L3")->value, 100e9);
  const Ceiling* dram = c.MainMemory();
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->scope, "DRAM");
  EXPECT_EQ(dram->metric, "triad_bandwidth");  // not the single-thread cache_sweep DRAM plateau
  EXPECT_EQ(dram->value, 25e9);
  EXPECT_NE(dram->basis.find("no write-allocate"), std::string::npos);
  const auto levels = c.MeasuredMemoryLevels();
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0]->scope, "L1");
  EXPECT_EQ(levels[3]->scope, "DRAM");
}

TEST(Ceilings, HostLinkAndNetworkAtTheLargestSize) {
  const Ceilings c = CpuCeilings();
  ASSERT_NE(c.HostLink("h2d"), nullptr);
  EXPECT_EQ(c.HostLink("h2d")->value, 10e9);  // 1e8 bytes pinned, not 5 (1e6) nor 7 (pageable)
  EXPECT_EQ(c.HostLink("d2h")->value, 8e9);
  ASSERT_NE(c.Network(), nullptr);
  EXPECT_EQ(c.Network()->scope, "all_reduce");
  EXPECT_EQ(c.Network()->value, 4e9);
  EXPECT_EQ(c.Network()->Label(), "all_reduce busbw");
}

TEST(Ceilings, AcceleratorUsesDeviceCopyAsHbmAndSpecIsLabelled) {
  Result<BenchResults> results = ReadBenchResults(DataPath("results-accelerator"));
  ASSERT_TRUE(results.ok());
  Ceilings c = CeilingsFromResults(*results);
  ASSERT_NE(c.MainMemory(), nullptr);
  EXPECT_EQ(c.MainMemory()->scope, "HBM");
  EXPECT_EQ(c.MainMemory()->value, 4000e9);
  Result<spec::SpecSheet> sheet = spec::LoadSpecSheet(DataPath("spec-accelerator.yaml"));
  ASSERT_TRUE(sheet.ok()) << sheet.error().message;
  for (Ceiling& spec : CeilingsFromSpec(*sheet)) c.all.push_back(spec);
  EXPECT_EQ(c.Compute("bf16")->source, CeilingSource::kMeasured);  // measured first
  ASSERT_NE(c.Compute("fp8"), nullptr);
  EXPECT_EQ(c.Compute("fp8")->source, CeilingSource::kSpec);
  EXPECT_EQ(c.Compute("fp8")->Label(), "fp8 peak (spec)");
  EXPECT_EQ(c.Compute("fp8")->value, 1979e12);
  EXPECT_EQ(c.MainMemory()->source, CeilingSource::kMeasured);
}

TEST(Ceilings, EveryMeasuredCeilingEqualsItsRecordExactly) {
  const BenchResults results = CpuResults();
  const Ceilings c = CeilingsFromResults(results);
  for (const Ceiling& ceiling : c.all) {
    bool found = false;
    for (const BenchRecord& record : results.records) {
      found =
          found || (record.benchmark == ceiling.benchmark && record.metric == ceiling.metric &&
                    record.value == ceiling.recorded_value && record.unit == ceiling.recorded_unit);
    }
    EXPECT_TRUE(found) << ceiling.Label();
  }
}

// A run on a GPU host holds CPU and GPU records; the roofline is the GPU's, from its gpu_*
// benchmarks counted like their CPU namesakes.
TEST(Ceilings, AcceleratorRecordsWinOverTheHostCpu) {
  const std::string jsonl =
      R"({"benchmark":"peak_fma","metric":"fp64_flops","value":90,"unit":"GFLOP/s","device":{"backend":"cpu","id":"cpu0","model":"Host"}})"
      "\n"
      R"({"benchmark":"gpu_gemm","metric":"bf16_flops","value":780000,"unit":"GFLOP/s","device":{"backend":"nvidia","id":"nvidia0","model":"GPU"}})"
      "\n"
      R"({"benchmark":"gpu_stream","metric":"triad_bandwidth","value":4300,"unit":"GB/s","device":{"backend":"nvidia","id":"nvidia0","model":"GPU"}})"
      "\n"
      R"({"benchmark":"gpu_l2_sweep","metric":"read_bandwidth","value":9000,"unit":"GB/s","parameters":{"working_set_bytes":1048576,"l2_bytes":52428800},"device":{"backend":"nvidia","id":"nvidia0","model":"GPU"}})"
      "\n"
      R"({"benchmark":"gpu_l2_sweep","metric":"read_bandwidth","value":4000,"unit":"GB/s","parameters":{"working_set_bytes":1073741824,"l2_bytes":52428800},"device":{"backend":"nvidia","id":"nvidia0","model":"GPU"}})"
      "\n";
  Result<BenchResults> results = ParseBenchResults(jsonl, "", "run");
  ASSERT_TRUE(results.ok()) << results.error().message;
  const Ceilings c = CeilingsFromResults(*results);
  EXPECT_EQ(c.Compute("fp64"), nullptr);  // the host CPU's peak is not this roofline's
  ASSERT_NE(c.Compute("bf16"), nullptr);
  EXPECT_EQ(c.Compute("bf16")->value, 780e12);
  ASSERT_NE(c.MainMemory(), nullptr);
  EXPECT_EQ(c.MainMemory()->scope, "HBM");
  EXPECT_EQ(c.MainMemory()->value, 4300e9);
  ASSERT_NE(c.Memory("L2"), nullptr);
  EXPECT_EQ(c.Memory("L2")->value, 9000e9);  // the working set that fits in L2
}

// A CPU with AVX512_BF16 and VNNI: the bf16 and int8 compute ceilings come from peak_fma's
// bf16_flops / int8_ops (GOP/s) and from oneDNN's gemm records, next to fp32.
TEST(Ceilings, CpuBf16AndInt8CeilingsFromPeakAndOneDnnGemm) {
  const std::string jsonl =
      R"({"benchmark":"peak_fma","metric":"fp32_flops","value":400,"unit":"GFLOP/s","parameters":{"simd":"avx512f"},"device":{"backend":"cpu","id":"cpu0","model":"Zen 5"}})"
      "\n"
      R"({"benchmark":"peak_fma","metric":"bf16_flops","value":800,"unit":"GFLOP/s","parameters":{"simd":"avx512_bf16"},"device":{"backend":"cpu","id":"cpu0","model":"Zen 5"}})"
      "\n"
      R"({"benchmark":"peak_fma","metric":"int8_ops","value":1600,"unit":"GOP/s","parameters":{"simd":"avx512_vnni"},"device":{"backend":"cpu","id":"cpu0","model":"Zen 5"}})"
      "\n"
      R"({"benchmark":"gemm","metric":"int8_ops","value":1200,"unit":"GOP/s","parameters":{"library":"onednn","m":256,"n":4096,"k":4096},"device":{"backend":"cpu","id":"cpu0","model":"Zen 5"}})"
      "\n";
  Result<BenchResults> results = ParseBenchResults(jsonl, "", "run");
  ASSERT_TRUE(results.ok()) << results.error().message;
  const Ceilings c = CeilingsFromResults(*results);
  ASSERT_NE(c.Compute("bf16"), nullptr);
  EXPECT_EQ(c.Compute("bf16")->value, 800e9);
  ASSERT_NE(c.Compute("int8"), nullptr);
  EXPECT_EQ(c.Compute("int8")->value, 1600e9);  // the peak, above the GEMM
  ASSERT_NE(c.Compute("fp32"), nullptr);
  EXPECT_EQ(c.Compute("fp32")->value, 400e9);
}

TEST(Format, ScalesByThousands) {
  EXPECT_EQ(FormatFlops(88.44e9), "88.44 GFLOP/s");
  EXPECT_EQ(FormatFlops(1.5e12), "1.5 TFLOP/s");
  EXPECT_EQ(FormatBandwidth(25.76e9), "25.76 GB/s");
  EXPECT_EQ(FormatSeconds(0.0123), "12.3 ms");
  EXPECT_EQ(FormatSeconds(4.5e-4), "450 us");
  EXPECT_EQ(FormatBytes(1.5e9), "1.5 GB");
}

}  // namespace
}  // namespace xpuperf::roofline

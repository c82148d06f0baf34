#include "xpuperf/analysis/spec_check.h"

#include <gtest/gtest.h>

namespace xpuperf::analysis {
namespace {

bench::ResultRecord Record(const std::string& benchmark, const std::string& metric, double value,
                           const std::string& unit, nlohmann::json parameters = {}, int line = 1) {
  bench::ResultRecord r;
  r.line = line;
  r.measurement.benchmark = benchmark;
  r.measurement.metric = metric;
  r.measurement.value = value;
  r.measurement.unit = unit;
  r.measurement.parameters = parameters.is_null() ? nlohmann::json::object() : parameters;
  return r;
}

// A GPU-like sheet: fp64 vector 10 TFLOP/s and tensor 20, bf16 100, 1 TB/s memory, links.
spec::SpecSheet Sheet() {
  spec::SpecSheet sheet;
  sheet.device = "Test GPU";
  sheet.source = "test datasheet";
  sheet.file = "test.yaml";
  sheet.peak_flops_per_second = {{"fp64", 10e12}, {"fp64_tensor", 20e12}, {"bf16", 100e12}};
  for (const auto& [p, v] : sheet.peak_flops_per_second) sheet.peak_sources[p] = "test datasheet";
  sheet.memory_bandwidth_bytes_per_second = 1e12;
  sheet.host_link = spec::LinkBandwidth{30e9, 32e9, "PCIe", "test datasheet"};
  sheet.network_link = spec::LinkBandwidth{400e9, 400e9, "NVLink", "test datasheet"};
  return sheet;
}

const CheckRow* Find(const CheckReport& report, const std::string& metric) {
  for (const CheckRow& row : report.rows) {
    if (row.metric == metric) return &row;
  }
  return nullptr;
}

TEST(SpecCheckTest, BestFigurePerComponentAgainstTheSheet) {
  bench::ResultDirectory run;
  run.device.model = "Test GPU";
  run.records = {
      Record("peak_fma", "fp64_flops", 9000, "GFLOP/s", {{"precision", "fp64"}}, 1),
      Record("gemm", "fp64_flops", 19.0, "TFLOP/s", {{"m", 8192}}, 2),  // the best: 95% of 20
      Record("gemm", "bf16_flops", 80e12, "FLOP/s", {}, 3),             // 80%
      Record("stream", "triad_bandwidth", 950, "GB/s", {}, 4),
      Record("stream", "triad_bandwidth", 900, "GB/s", {}, 5),
      Record("stream", "triad_bandwidth_write_allocate", 990, "GB/s", {}, 6),  // not STREAM's
      Record("collectives", "all_reduce_busbw", 390, "GB/s", {{"bytes", 1 << 20}}, 7),
      Record("collectives", "all_reduce_busbw", 370, "GB/s", {{"bytes", 1 << 26}}, 8),
      Record("collectives", "all_reduce_latency", 5, "us", {{"bytes", 8}}, 9),
      Record("collectives", "all_gather_busbw", 385, "GB/s", {{"bytes", 1 << 26}}, 10),
      Record("host_transfer", "h2d_bandwidth", 29, "GB/s", {{"host_memory", "pinned"}}, 11),
      Record("host_transfer", "h2d_bandwidth", 12, "GB/s", {{"host_memory", "pageable"}}, 12),
  };
  const CheckReport report = CheckAgainstSpec(run, Sheet(), CheckThresholds{});
  EXPECT_EQ(report.sheet_device, "Test GPU");
  EXPECT_EQ(report.sheet_source, "test.yaml");

  // The sheet gives fp64's vector and matrix rates apart: peak_fma against the vector peak...
  const CheckRow* fp64 = Find(report, "fp64 FLOP/s");
  ASSERT_NE(fp64, nullptr);
  EXPECT_DOUBLE_EQ(*fp64->measured, 9e12);
  EXPECT_DOUBLE_EQ(*fp64->spec, 10e12);
  EXPECT_DOUBLE_EQ(*fp64->achieved_percent, 90);
  EXPECT_EQ(fp64->verdict, CheckVerdict::kPass);  // the threshold is inclusive
  EXPECT_NE(fp64->spec_from.find("peak_flops_per_second.fp64:"), std::string::npos);
  // ... and gemm against the matrix peak.
  const CheckRow* fp64_tensor = Find(report, "fp64 tensor FLOP/s");
  ASSERT_NE(fp64_tensor, nullptr);
  EXPECT_DOUBLE_EQ(*fp64_tensor->measured, 19e12);
  EXPECT_DOUBLE_EQ(*fp64_tensor->spec, 20e12);
  EXPECT_DOUBLE_EQ(*fp64_tensor->achieved_percent, 95);
  EXPECT_EQ(fp64_tensor->verdict, CheckVerdict::kPass);
  EXPECT_NE(fp64_tensor->measured_from.find("gemm m=8192 (results.jsonl line 2)"),
            std::string::npos)
      << fp64_tensor->measured_from;
  EXPECT_NE(fp64_tensor->spec_from.find("peak_flops_per_second.fp64_tensor"), std::string::npos);

  const CheckRow* bf16 = Find(report, "bf16 FLOP/s");
  ASSERT_NE(bf16, nullptr);
  EXPECT_DOUBLE_EQ(*bf16->achieved_percent, 80);
  EXPECT_EQ(bf16->verdict, CheckVerdict::kFail);

  const CheckRow* triad = Find(report, "triad bandwidth");
  ASSERT_NE(triad, nullptr);
  EXPECT_DOUBLE_EQ(*triad->measured, 950e9);
  EXPECT_DOUBLE_EQ(*triad->achieved_percent, 95);
  EXPECT_EQ(triad->verdict, CheckVerdict::kPass);

  // all_reduce: the largest message (64 MiB, 370 GB/s), not the best figure (390 at 1 MiB).
  const CheckRow* all_reduce = Find(report, "all_reduce busbw");
  ASSERT_NE(all_reduce, nullptr);
  EXPECT_DOUBLE_EQ(*all_reduce->measured, 370e9);
  EXPECT_DOUBLE_EQ(*all_reduce->achieved_percent, 92.5);
  EXPECT_EQ(all_reduce->verdict, CheckVerdict::kFail);  // network threshold 95%
  EXPECT_NE(all_reduce->measured_from.find("line 8"), std::string::npos);
  const CheckRow* all_gather = Find(report, "all_gather busbw");
  ASSERT_NE(all_gather, nullptr);
  EXPECT_DOUBLE_EQ(*all_gather->achieved_percent, 96.25);
  EXPECT_EQ(all_gather->verdict, CheckVerdict::kPass);

  const CheckRow* h2d = Find(report, "h2d bandwidth");
  ASSERT_NE(h2d, nullptr);
  EXPECT_DOUBLE_EQ(*h2d->measured, 29e9);
  EXPECT_DOUBLE_EQ(*h2d->spec, 32e9);  // rx: towards the device
  EXPECT_DOUBLE_EQ(*h2d->achieved_percent, 90.625);
  EXPECT_EQ(h2d->verdict, CheckVerdict::kPass);
  const CheckRow* d2h = Find(report, "d2h bandwidth");
  ASSERT_NE(d2h, nullptr);
  EXPECT_EQ(d2h->verdict, CheckVerdict::kNotMeasured);
  EXPECT_DOUBLE_EQ(*d2h->spec, 30e9);

  EXPECT_FALSE(report.Passed());
  // Lower thresholds turn the misses into passes.
  CheckThresholds lenient;
  lenient.compute = 80;
  lenient.network = 90;
  EXPECT_TRUE(CheckAgainstSpec(run, Sheet(), lenient).Passed());
}

TEST(SpecCheckTest, MissingSidesAreNotMeasuredOrNoSpec) {
  bench::ResultDirectory run;
  run.records = {Record("peak_fma", "fp32_flops", 100, "GFLOP/s"),
                 Record("stream", "triad_bandwidth", 30, "GB/s")};
  run.skipped = {"peak_fma {\"precision\":\"bf16\"}: unsupported: no AVX512_BF16"};
  spec::SpecSheet sheet = Sheet();
  sheet.memory_bandwidth_bytes_per_second = 0;
  sheet.memory_unknown_reason = "no SMBIOS memory device table";
  sheet.host_link.reset();
  sheet.network_link.reset();
  const CheckReport report = CheckAgainstSpec(run, sheet);

  const CheckRow* fp64 = Find(report, "fp64 FLOP/s");
  ASSERT_NE(fp64, nullptr);
  EXPECT_EQ(fp64->verdict, CheckVerdict::kNotMeasured);
  EXPECT_EQ(fp64->measured_from, "no peak_fma record of fp64_flops");
  EXPECT_EQ(Find(report, "fp64 tensor FLOP/s")->measured_from, "no gemm record of fp64_flops");
  const CheckRow* fp32 = Find(report, "fp32 FLOP/s");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->verdict, CheckVerdict::kNoSpec);
  EXPECT_EQ(fp32->spec_from, "the sheet has no fp32 peak");
  const CheckRow* bf16 = Find(report, "bf16 FLOP/s");
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->verdict, CheckVerdict::kNotMeasured);
  EXPECT_NE(bf16->measured_from.find("unsupported: no AVX512_BF16"), std::string::npos);

  const CheckRow* triad = Find(report, "triad bandwidth");
  ASSERT_NE(triad, nullptr);
  EXPECT_EQ(triad->verdict, CheckVerdict::kNoSpec);
  EXPECT_EQ(triad->spec_from, "memory: unknown (no SMBIOS memory device table)");

  const CheckRow* busbw = Find(report, "busbw");
  ASSERT_NE(busbw, nullptr);
  EXPECT_EQ(busbw->verdict, CheckVerdict::kNotMeasured);
  EXPECT_EQ(busbw->spec_from, "the sheet has no network link");
  EXPECT_EQ(Find(report, "h2d bandwidth")->verdict, CheckVerdict::kNotMeasured);
  // Rows in component order, compute precisions as users read them.
  ASSERT_GE(report.rows.size(), 4u);
  EXPECT_EQ(report.rows[0].metric, "fp64 FLOP/s");
  EXPECT_EQ(report.rows[1].metric, "fp64 tensor FLOP/s");
  EXPECT_EQ(report.rows[2].metric, "fp32 FLOP/s");
  EXPECT_EQ(report.rows[3].metric, "bf16 FLOP/s");
  EXPECT_TRUE(report.Passed());  // nothing failed: nothing was comparable
}

TEST(SpecCheckTest, UnitsScaleToBaseUnits) {
  EXPECT_EQ(*ThroughputUnitScale("GFLOP/s"), 1e9);
  EXPECT_EQ(*ThroughputUnitScale("TFLOP/s"), 1e12);
  EXPECT_EQ(*ThroughputUnitScale("GB/s"), 1e9);
  EXPECT_EQ(*ThroughputUnitScale("GiB/s"), 1073741824.0);
  EXPECT_EQ(*ThroughputUnitScale("MB/s"), 1e6);
  EXPECT_FALSE(ThroughputUnitScale("us").has_value());
  EXPECT_FALSE(ThroughputUnitScale("bytes").has_value());
}

TEST(SpecCheckTest, JsonCarriesEveryRow) {
  bench::ResultDirectory run;
  run.records = {Record("stream", "triad_bandwidth", 500, "GB/s")};
  const nlohmann::json json = ToJson(CheckAgainstSpec(run, Sheet()));
  EXPECT_EQ(json["passed"], false);
  bool found = false;
  for (const auto& row : json["rows"]) {
    if (row["metric"] != "triad bandwidth") continue;
    found = true;
    EXPECT_EQ(row["verdict"], "FAIL");
    EXPECT_DOUBLE_EQ(row["achieved_percent"].get<double>(), 50);
    EXPECT_DOUBLE_EQ(row["threshold_percent"].get<double>(), 90);
  }
  EXPECT_TRUE(found);
}

TEST(SpecCheckTest, FormatsParametersOnOneLine) {
  EXPECT_EQ(FormatParameters({{"precision", "fp32"}, {"m", 256}, {"bytes", 75497472.0}}),
            "bytes=75497472 m=256 precision=fp32");
  EXPECT_EQ(FormatParameters(nlohmann::json::object()), "");
}

}  // namespace
}  // namespace xpuperf::analysis

namespace xpuperf::analysis {
namespace {

// A figure marked unstable is not judged: its row says UNSTABLE with the reason, and a stable
// figure of the same kind is preferred to a higher unstable one.
TEST(SpecCheckTest, UnstableFiguresAreNotJudged) {
  bench::ResultDirectory run;
  run.records = {Record("peak_fma", "fp64_flops", 2, "TFLOP/s", {}, 1),
                 Record("stream", "triad_bandwidth", 990, "GB/s", {}, 2),
                 Record("stream", "triad_bandwidth", 1200, "GB/s", {}, 3)};
  bench::MarkUnstable(run.records[0].measurement, "busy machine: other processes used 48%");
  bench::MarkUnstable(run.records[2].measurement, "inconsistent: above its nominal");
  const CheckReport report = CheckAgainstSpec(run, Sheet());
  const CheckRow* fp64 = Find(report, "fp64 FLOP/s");
  ASSERT_NE(fp64, nullptr);
  EXPECT_EQ(fp64->verdict, CheckVerdict::kUnstable);  // 20% of spec, but not judged as FAIL
  EXPECT_EQ(CheckVerdictName(fp64->verdict), "UNSTABLE");
  EXPECT_NE(fp64->measured_from.find("unstable, not judged: busy machine"), std::string::npos)
      << fp64->measured_from;
  const CheckRow* triad = Find(report, "triad bandwidth");
  ASSERT_NE(triad, nullptr);
  EXPECT_EQ(triad->verdict, CheckVerdict::kPass);  // the stable 990, not the unstable 1200
  EXPECT_DOUBLE_EQ(*triad->measured, 990e9);
  EXPECT_TRUE(report.Passed());
}

}  // namespace
}  // namespace xpuperf::analysis

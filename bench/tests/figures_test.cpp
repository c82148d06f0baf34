// Which record is which figure of a run (figures.h), the gpu_* benchmarks included.
#include "xpuperf/bench/figures.h"

#include <gtest/gtest.h>

namespace xpuperf::bench {
namespace {

std::optional<Figure> Classify(const std::string& benchmark, const std::string& metric,
                               const nlohmann::json& parameters = nlohmann::json::object()) {
  return ClassifyRecord(benchmark, metric, parameters);
}

void ExpectFigure(const std::optional<Figure>& figure, FigureKind kind, const std::string& scope,
                  bool gpu) {
  ASSERT_TRUE(figure.has_value());
  EXPECT_EQ(figure->kind, kind);
  EXPECT_EQ(figure->scope, scope);
  EXPECT_EQ(figure->gpu, gpu);
}

TEST(FiguresTest, CpuAndGpuBenchmarksGiveTheSameFigures) {
  for (const std::string prefix : {"", "gpu_"}) {
    const bool gpu = !prefix.empty();
    ExpectFigure(Classify(prefix + "peak_fma", "fp64_flops"), FigureKind::kComputePeak, "fp64",
                 gpu);
    ExpectFigure(Classify(prefix + "gemm", "bf16_flops"), FigureKind::kComputeGemm, "bf16", gpu);
    ExpectFigure(Classify(prefix + "gemm", "int8_ops"), FigureKind::kComputeGemm, "int8", gpu);
    ExpectFigure(Classify(prefix + "stream", "triad_bandwidth"), FigureKind::kMainMemory, "triad",
                 gpu);
    ExpectFigure(Classify(prefix + "host_transfer", "h2d_bandwidth"), FigureKind::kHostLink, "h2d",
                 gpu);
    ExpectFigure(Classify(prefix + "host_transfer", "d2h_bandwidth"), FigureKind::kHostLink, "d2h",
                 gpu);
    ExpectFigure(Classify(prefix + "host_transfer", "d2d_bandwidth"), FigureKind::kDeviceCopy,
                 "d2d", gpu);
    ExpectFigure(Classify(prefix + "collectives", "all_reduce_busbw"), FigureKind::kNetwork,
                 "all_reduce", gpu);
    EXPECT_FALSE(Classify(prefix + "stream", "copy_bandwidth"));
    EXPECT_FALSE(Classify(prefix + "stream", "triad_bandwidth_write_allocate"));
    EXPECT_FALSE(Classify(prefix + "host_transfer", "h2d_latency"));
    EXPECT_FALSE(Classify(prefix + "collectives", "all_reduce_algbw"));
    EXPECT_FALSE(Classify(prefix + "attention", "bf16_flops"));
  }
  ExpectFigure(Classify("cache_sweep", "L2_read_bandwidth"), FigureKind::kCacheBandwidth, "L2",
               false);
  EXPECT_FALSE(Classify("cache_sweep", "read_bandwidth"));  // a sweep point, not a plateau
}

TEST(FiguresTest, L2SweepCountsOnlyWorkingSetsWithinL2) {
  ExpectFigure(Classify("gpu_l2_sweep", "read_bandwidth",
                        {{"working_set_bytes", 1 << 20}, {"l2_bytes", 50 << 20}}),
               FigureKind::kL2Sweep, "L2", true);
  EXPECT_FALSE(Classify("gpu_l2_sweep", "read_bandwidth",
                        {{"working_set_bytes", 100 << 20}, {"l2_bytes", 50 << 20}}));
}

TEST(FiguresTest, TheFigureDeviceIsTheFirstAccelerator) {
  std::vector<ResultRecord> records(3);
  records[0].device_backend = "cpu";
  records[0].device_id = "cpu0";
  records[1].device_backend = "nvidia";
  records[1].device_id = "nvidia1";
  records[2].device_backend = "nvidia";
  records[2].device_id = "nvidia0";
  EXPECT_EQ(FigureDeviceId(records), "nvidia1");
  EXPECT_FALSE(OnFigureDevice("cpu0", "nvidia1"));
  EXPECT_TRUE(OnFigureDevice("nvidia1", "nvidia1"));
  records.resize(1);
  EXPECT_EQ(FigureDeviceId(records), "");
  EXPECT_TRUE(OnFigureDevice("cpu0", ""));
}

}  // namespace
}  // namespace xpuperf::bench

// Measurements and the table from timed points; reading them back from results.jsonl.
#include "xpuperf/collectives/network_report.h"

#include <gtest/gtest.h>

#include "xpuperf/bench/result_reader.h"
#include "xpuperf/bench/results.h"

namespace xpuperf::collectives {
namespace {

CollectivePoint Point(CollectiveOp op, int64_t bytes, std::vector<double> seconds) {
  CollectivePoint point;
  point.op = op;
  point.shape = *ShapeFor(op, bytes, 4, 4);
  point.ranks = 4;
  point.hosts = 1;
  point.iterations = 20;
  point.seconds_per_operation = std::move(seconds);
  return point;
}

TEST(NetworkReportTest, LargeSizesReportAlgbwAndBusbwFromTheMedian) {
  // 1 MiB all_reduce; median of {2, 1, 3} ms = 2 ms.
  const auto ms = MakeMeasurements(Point(CollectiveOp::kAllReduce, 1 << 20, {2e-3, 1e-3, 3e-3}));
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].benchmark, "collectives");
  EXPECT_EQ(ms[0].metric, "all_reduce_algbw");
  EXPECT_EQ(ms[0].unit, "GB/s");
  // 1048576 B / 0.002 s = 524288000 B/s.
  EXPECT_DOUBLE_EQ(ms[0].value, 0.524288);
  EXPECT_DOUBLE_EQ(ms[0].bytes_per_repetition, 1048576);
  EXPECT_EQ(ms[1].metric, "all_reduce_busbw");
  // x 2(4-1)/4 = 1.5.
  EXPECT_DOUBLE_EQ(ms[1].value, 0.786432);
  EXPECT_DOUBLE_EQ(ms[1].bytes_per_repetition, 1572864);
  EXPECT_EQ(ms[1].parameters["op"], "all_reduce");
  EXPECT_EQ(ms[1].parameters["bytes"], 1048576);
  EXPECT_EQ(ms[1].parameters["size"], "1 MiB");
  EXPECT_EQ(ms[1].parameters["ranks"], 4);
  EXPECT_EQ(ms[1].parameters["hosts"], 1);
  EXPECT_EQ(ms[1].parameters["dtype"], "float");
  EXPECT_EQ(ms[1].parameters["redop"], "sum");
  EXPECT_EQ(ms[1].parameters["in_place"], false);
  EXPECT_EQ(ms[1].parameters["wrong"], 0);
  EXPECT_EQ(ms[1].parameters["backend"], "mpi");
  EXPECT_EQ(ms[1].timing_source, kTimingSource);
  EXPECT_EQ(ms[1].repetitions_per_sample, 20);
  EXPECT_EQ(ms[1].statistics.count, 3);
  EXPECT_DOUBLE_EQ(ms[1].statistics.median, 2e-3);
  EXPECT_NE(ms[1].formula.find("2(n-1)/n"), std::string::npos);
}

TEST(NetworkReportTest, NcclPointsKeepTheirBenchmarkBackendAndTimingSource) {
  CollectivePoint point = Point(CollectiveOp::kReduceScatter, 1 << 20, {1e-3});
  point.benchmark = "gpu_collectives";
  point.backend = "nccl";
  point.timing_source = "CUDA events";
  const auto ms = MakeMeasurements(point);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[1].benchmark, "gpu_collectives");
  EXPECT_EQ(ms[1].metric, "reduce_scatter_busbw");
  EXPECT_EQ(ms[1].parameters["backend"], "nccl");
  EXPECT_EQ(ms[1].timing_source, "CUDA events");
  // 1048576 B / 1 ms = 1.048576 GB/s, x (4-1)/4.
  EXPECT_DOUBLE_EQ(ms[1].value, 0.786432);
}

TEST(NetworkReportTest, SmallSizesReportLatencyInMicroseconds) {
  const auto ms = MakeMeasurements(Point(CollectiveOp::kSendRecv, 8, {5e-6, 4e-6}));
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].metric, "send_recv_latency");
  EXPECT_EQ(ms[0].unit, "us");
  EXPECT_DOUBLE_EQ(ms[0].value, 4.5);
}

TEST(NetworkReportTest, TableRowsAreNcclTestsColumns) {
  // all_gather 1 MiB on 4 ranks: count 65536 per rank; 1 ms: algbw 1.049 GB/s, busbw x 3/4; in
  // place 2 ms.
  const CollectivePoint point = Point(CollectiveOp::kAllGather, 1 << 20, {1e-3});
  CollectivePoint in_place = Point(CollectiveOp::kAllGather, 1 << 20, {2e-3});
  in_place.variant.in_place = true;
  EXPECT_EQ(TableHeader(),
            "#                                                                           "
            "out-of-place                                      in-place\n"
            "#        size        count     type              op  redop     time(us)  algbw(GB/s)  "
            "busbw(GB/s)   #wrong     time(us)  algbw(GB/s)  busbw(GB/s)   #wrong\n");
  EXPECT_EQ(TableRow(&point, &in_place),
            "      1048576        65536    float      all_gather   none      1000.00        1.049  "
            "      0.786        0      2000.00        0.524        0.393        0\n");
  CollectivePoint reduced = Point(CollectiveOp::kAllReduce, 1 << 20, {1e-3});
  reduced.variant.dtype = DataType::kBfloat16;
  reduced.variant.redop = ReduceOp::kMax;
  reduced.variant.in_place = true;
  EXPECT_EQ(TableRow(nullptr, &reduced),
            "      1048576       262144 bfloat16      all_reduce    max          n/a          n/a  "
            "        n/a      n/a      1000.00        1.049        1.573        0\n");
  EXPECT_EQ(MakeMeasurements(reduced)[0].parameters["in_place"], true);
  EXPECT_EQ(MakeMeasurements(reduced)[0].parameters["redop"], "max");
  EXPECT_FALSE(MakeMeasurements(point)[0].parameters.contains("redop"));
  EXPECT_EQ(TableFooter({point, in_place, Point(CollectiveOp::kAllGather, 8, {1e-6})}),
            "# Avg bus bandwidth all_gather     : 0.590 GB/s (over 2 figures >= 64 KiB, out of "
            "place and in place)\n");
}

TEST(NetworkReportTest, RecordsReadBackThroughTheResultReader) {
  // What the registry's `collectives` benchmark reads from the ranks' result directory.
  const auto ms = MakeMeasurements(Point(CollectiveOp::kAllToAll, 4 << 20, {1e-3, 2e-3}));
  bench::RunInfo run;
  run.run_id = "r";
  std::string jsonl;
  for (const auto& m : ms) jsonl += bench::MeasurementRecord(m, run).dump() + "\n";
  Result<std::vector<bench::ResultRecord>> read = bench::ParseResultsJsonl(jsonl, "results.jsonl");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->size(), 2u);
  const bench::Measurement& busbw = (*read)[1].measurement;
  EXPECT_EQ(busbw.metric, "all_to_all_busbw");
  EXPECT_DOUBLE_EQ(busbw.value, ms[1].value);
  EXPECT_EQ(busbw.parameters, ms[1].parameters);
  EXPECT_EQ(busbw.sample_seconds, ms[1].sample_seconds);
  EXPECT_DOUBLE_EQ(busbw.statistics.median, 1.5e-3);
  EXPECT_EQ(busbw.formula, ms[1].formula);
}

}  // namespace
}  // namespace xpuperf::collectives

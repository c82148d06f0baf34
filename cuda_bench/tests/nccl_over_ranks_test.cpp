// The rank-agreement logic of the NCCL collectives over ranks, with threads as ranks: device
// choice, agreed errors, the unique-id broadcast, the merged samples and #wrong, and the skip
// without a CUDA driver.
#include "xpuperf/cuda_bench/nccl_over_ranks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "thread_rank_group.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"

namespace xpuperf::cuda_bench {
namespace {

using collectives::CollectiveOp;
using collectives::CollectiveResult;
using collectives::RankGroup;

TEST(NcclOverRanksTest, EachLocalRankTakesItsOwnGpu) {
  EXPECT_EQ(*DeviceForLocalRank(0, 8), 0);
  EXPECT_EQ(*DeviceForLocalRank(7, 8), 7);
  // More ranks than GPUs: NCCL refuses two ranks on one GPU, so it is unsupported, not shared.
  const auto oversubscribed = DeviceForLocalRank(1, 1);
  ASSERT_FALSE(oversubscribed.ok());
  EXPECT_EQ(oversubscribed.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(oversubscribed.error().message,
            "unsupported: local rank 1 on a host with 1 GPU: NCCL needs one GPU per rank (start "
            "at most 1 rank per host)");
  EXPECT_EQ(DeviceForLocalRank(9, 8).error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(DeviceForLocalRank(0, 0).error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(DeviceForLocalRank(-1, 4).error().code, ErrorCode::kInvalidArgument);
}

TEST(NcclOverRanksTest, AllRanksOkAgreeOnOk) {
  std::atomic<int> ok = 0;
  RunOnRanks(4, [&](RankGroup& group) {
    if (AgreeOnStatus(group, Status::Ok()).ok()) ++ok;
  });
  EXPECT_EQ(ok, 4);
}

TEST(NcclOverRanksTest, EveryRankGetsTheLowestFailingRanksError) {
  std::mutex mutex;
  std::vector<Status> seen(4);
  RunOnRanks(4, [&](RankGroup& group) {
    Status local = Status::Ok();
    if (group.rank() == 2) local = MakeError(ErrorCode::kUnsupported, "unsupported: no GPU");
    if (group.rank() == 3) local = MakeError(ErrorCode::kInternal, "later rank");
    const Status agreed = AgreeOnStatus(group, local);
    std::lock_guard lock(mutex);
    seen[group.rank()] = agreed;
  });
  for (const Status& status : seen) {
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::kUnsupported);
    EXPECT_EQ(status.error().message, "unsupported: no GPU (rank 2)");
  }
}

TEST(NcclOverRanksTest, RankZerosErrorKeepsItsMessage) {
  std::atomic<int> same = 0;
  RunOnRanks(2, [&](RankGroup& group) {
    const Status local = group.rank() == 0
                             ? Status(MakeError(ErrorCode::kUnsupported, "unsupported: no CUDA"))
                             : Status::Ok();
    const Status agreed = AgreeOnStatus(group, local);
    if (!agreed.ok() && agreed.error().message == "unsupported: no CUDA") ++same;
  });
  EXPECT_EQ(same, 2);
}

TEST(NcclOverRanksTest, RankZerosUniqueIdReachesEveryRank) {
  std::atomic<int> created = 0;
  std::atomic<int> matching = 0;
  RunOnRanks(3, [&](RankGroup& group) {
    Result<NcclIdBytes> id = ShareUniqueId(group, [&]() -> Result<NcclIdBytes> {
      ++created;
      NcclIdBytes bytes{};
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 1);
      return bytes;
    });
    if (id.ok() && (*id)[0] == 1 && (*id)[1] == 8 && (*id)[127] == static_cast<char>(127 * 7 + 1)) {
      ++matching;
    }
  });
  EXPECT_EQ(created, 1);
  EXPECT_EQ(matching, 3);
}

TEST(NcclOverRanksTest, AFailedUniqueIdFailsEveryRank) {
  std::atomic<int> failed = 0;
  RunOnRanks(3, [&](RankGroup& group) {
    Result<NcclIdBytes> id = ShareUniqueId(group, []() -> Result<NcclIdBytes> {
      return MakeError(ErrorCode::kInternal, "ncclGetUniqueId: system error");
    });
    if (!id.ok() && id.error().message == "ncclGetUniqueId: system error") ++failed;
  });
  EXPECT_EQ(failed, 3);
}

TEST(NcclOverRanksTest, SamplesTakeTheSlowestRankAndWrongIsSummed) {
  CollectiveResult on_rank[3];
  RunOnRanks(3, [&](RankGroup& group) {
    CollectiveResult& result = on_rank[group.rank()];
    // Rank r takes (r + 1) ms for 4 operations, then 2 ms for rank 0 only.
    ASSERT_TRUE(RecordSample(group, (group.rank() + 1) * 1e-3, 4, result).ok());
    ASSERT_TRUE(RecordSample(group, group.rank() == 0 ? 2e-3 : 1e-3, 4, result).ok());
    ASSERT_TRUE(RecordWrong(group, group.rank() * 5, result).ok());  // 0 + 5 + 10
    ASSERT_TRUE(RecordWrong(group, group.rank() == 1 ? 1 : 0, result).ok());
  });
  ASSERT_EQ(on_rank[0].seconds_per_operation.size(), 2u);
  EXPECT_DOUBLE_EQ(on_rank[0].seconds_per_operation[0], 0.75e-3);  // 3 ms / 4
  EXPECT_DOUBLE_EQ(on_rank[0].seconds_per_operation[1], 0.5e-3);   // 2 ms / 4
  EXPECT_EQ(on_rank[0].wrong, 16);
  EXPECT_TRUE(on_rank[1].seconds_per_operation.empty());
  EXPECT_EQ(on_rank[2].wrong, 0);
}

TEST(NcclOverRanksTest, ShapesAreNcclTestsWithOutOfPlaceBuffers) {
  // all_gather, 1 MiB over 4 GPUs: 65536 floats from each, 262144 received.
  Result<collectives::CollectiveShape> gather = NcclShapeFor(CollectiveOp::kAllGather, 1 << 20, 4);
  ASSERT_TRUE(gather.ok());
  EXPECT_EQ(gather->count, 65536);
  EXPECT_EQ(gather->bytes, 1 << 20);
  EXPECT_EQ(gather->send_elements, 65536);
  EXPECT_EQ(gather->recv_elements, 262144);
  // broadcast sends from its own buffer (out of place): 100 bytes = 25 floats each way.
  Result<collectives::CollectiveShape> broadcast = NcclShapeFor(CollectiveOp::kBroadcast, 100, 8);
  ASSERT_TRUE(broadcast.ok());
  EXPECT_EQ(broadcast->send_elements, 25);
  EXPECT_EQ(broadcast->recv_elements, 25);
  // reduce_scatter, 8 bytes over 8 GPUs: at least one float per rank, S = 32 bytes.
  Result<collectives::CollectiveShape> scatter = NcclShapeFor(CollectiveOp::kReduceScatter, 8, 8);
  ASSERT_TRUE(scatter.ok());
  EXPECT_EQ(scatter->count, 1);
  EXPECT_EQ(scatter->bytes, 32);
  EXPECT_EQ(scatter->send_elements, 8);
  EXPECT_EQ(scatter->recv_elements, 1);
  EXPECT_FALSE(NcclShapeFor(CollectiveOp::kAllReduce, 0, 2).ok());
}

TEST(NcclOverRanksTest, WithoutCudaEveryRankIsSkippedWithTheReason) {
  if (CudaAvailability().ok()) GTEST_SKIP() << "a CUDA device is present";
  const std::string reason = CudaAvailability().error().message;
  std::atomic<int> skipped = 0;
  RunOnRanks(2, [&](RankGroup& group) {
    auto started = StartNcclOverRanks(group);
    if (!started.ok() && started.error().code == ErrorCode::kUnsupported &&
        started.error().message == reason) {
      ++skipped;
    }
  });
  EXPECT_EQ(skipped, 2);
}

}  // namespace
}  // namespace xpuperf::cuda_bench

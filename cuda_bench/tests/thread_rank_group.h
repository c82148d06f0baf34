// A RankGroup whose ranks are threads of this process, for testing the agreement logic of code
// that runs on every rank without MPI.
#pragma once

#include <algorithm>
#include <barrier>
#include <functional>
#include <thread>
#include <vector>

#include "xpuperf/collectives/rank_group.h"

namespace xpuperf::cuda_bench {

class ThreadRankGroup final : public collectives::RankGroup {
 public:
  struct Shared {
    explicit Shared(int n) : ranks(n), barrier(n), bytes(n), ints(n), doubles(n) {}
    int ranks;
    std::barrier<> barrier;
    std::vector<std::vector<std::byte>> bytes;
    std::vector<int64_t> ints;
    std::vector<double> doubles;
  };
  ThreadRankGroup(Shared& shared, int rank, int local_rank)
      : shared_(shared), rank_(rank), local_rank_(local_rank) {}

  int rank() const override { return rank_; }
  int ranks() const override { return shared_.ranks; }
  int local_rank() const override { return local_rank_; }
  Status Broadcast(std::span<std::byte> bytes, int root) override {
    if (rank_ == root) shared_.bytes[root].assign(bytes.begin(), bytes.end());
    shared_.barrier.arrive_and_wait();
    std::copy(shared_.bytes[root].begin(), shared_.bytes[root].end(), bytes.begin());
    shared_.barrier.arrive_and_wait();
    return Status::Ok();
  }
  Result<int64_t> MinOverRanks(int64_t value) override {
    return Reduce(shared_.ints, value, [](auto a, auto b) { return std::min(a, b); });
  }
  Result<int64_t> SumOverRanks(int64_t value) override {
    return Reduce(shared_.ints, value, [](auto a, auto b) { return a + b; });
  }
  Result<double> MaxOverRanks(double value) override {
    return Reduce(shared_.doubles, value, [](auto a, auto b) { return std::max(a, b); });
  }
  Status Barrier() override {
    shared_.barrier.arrive_and_wait();
    return Status::Ok();
  }

 private:
  template <typename T, typename Op>
  T Reduce(std::vector<T>& slots, T value, Op op) {
    slots[rank_] = value;
    shared_.barrier.arrive_and_wait();
    T out = slots[0];
    for (int r = 1; r < shared_.ranks; ++r) out = op(out, slots[r]);
    shared_.barrier.arrive_and_wait();
    return out;
  }
  Shared& shared_;
  int rank_;
  int local_rank_;
};

// Runs body(group) on `ranks` threads, rank r with local rank r; returns when all are done.
inline void RunOnRanks(int ranks, const std::function<void(collectives::RankGroup&)>& body) {
  ThreadRankGroup::Shared shared(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&shared, &body, r] {
      ThreadRankGroup group(shared, r, r);
      body(group);
    });
  }
  for (std::thread& thread : threads) thread.join();
}

}  // namespace xpuperf::cuda_bench

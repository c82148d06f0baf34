#include "xpuperf/bench/queue.h"

#include <chrono>

namespace xpuperf::bench {

double HostQueue::TimeSeconds(const std::function<void()>& enqueue) {
  const auto start = std::chrono::steady_clock::now();
  enqueue();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace xpuperf::bench

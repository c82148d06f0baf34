// Internal: a thread that calls `work` every `period_seconds` until it is destroyed, for the
// attribution caches that refresh off the scrape path (pod_attribution.cpp,
// slurm_job_attribution.cpp, process_pods.cpp). The first call is the owner's, before it starts the
// thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace xpuperf::exporter {

class PeriodicThread {
 public:
  PeriodicThread(double period_seconds, std::function<void()> work)
      : period_(period_seconds), work_(std::move(work)) {
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!stop_) {
        wake_.wait_for(lock, period_, [this] { return stop_; });
        if (stop_) break;
        lock.unlock();
        work_();
        lock.lock();
      }
    });
  }
  ~PeriodicThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  std::chrono::duration<double> period_;
  std::function<void()> work_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace xpuperf::exporter

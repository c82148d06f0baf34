#include "backend_collector.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "energy_audit.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::exporter {

struct BackendCollector::Shared {
  std::unique_ptr<Session> session;
  std::vector<std::string> metrics;
  int64_t interval_ns = 0;
  int64_t deadline_ns = 0;
  const Clock* clock = nullptr;
  std::function<void()> on_collected;
  EnergyAudit energy_audit;  // the collection thread's only

  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  bool finished = false;
  int64_t running_since_ns = 0;  // monotonic start of the Collect in progress; 0 = none
  CollectorSnapshot state;
};

BackendCollector::BackendCollector(std::string backend, std::unique_ptr<Session> session,
                                   std::vector<std::string> metrics, double interval_seconds,
                                   double deadline_seconds, const Clock& clock,
                                   std::function<void()> on_collected)
    : backend_(std::move(backend)), shared_(std::make_shared<Shared>()) {
  shared_->session = std::move(session);
  shared_->metrics = std::move(metrics);
  // Energy is checked against power (energy_audit.h): collected also when only energy is asked
  // for (the snapshot exports what was asked for).
  auto& m = shared_->metrics;
  if (std::find(m.begin(), m.end(), metrics::kEnergy) != m.end() &&
      std::find(m.begin(), m.end(), metrics::kPower) == m.end()) {
    m.emplace_back(metrics::kPower);
  }
  shared_->interval_ns = static_cast<int64_t>(interval_seconds * 1e9);
  shared_->deadline_ns = static_cast<int64_t>(deadline_seconds * 1e9);
  shared_->clock = &clock;
  shared_->on_collected = std::move(on_collected);
  shared_->state.backend = backend_;
  shared_->state.reason = "no collection yet";
}

BackendCollector::~BackendCollector() { Stop(0); }

void BackendCollector::Start() {
  // The thread holds its own reference to Shared, so a detached thread never touches `this`.
  std::shared_ptr<Shared> shared = shared_;
  thread_ = std::thread([shared] {
    const Clock& clock = *shared->clock;
    int64_t previous_ns = clock.MonotonicNs();
    int64_t next_ns = previous_ns;
    while (true) {
      std::function<void()> callback;
      {
        std::unique_lock<std::mutex> lock(shared->mutex);
        const auto wait =
            std::chrono::nanoseconds(std::max<int64_t>(0, next_ns - clock.MonotonicNs()));
        shared->wake.wait_for(lock, wait, [&] { return shared->stop; });
        if (shared->stop) break;
        shared->running_since_ns = clock.MonotonicNs();
      }
      const int64_t start_ns = clock.MonotonicNs();
      auto readings = shared->session->Collect(shared->metrics);
      const int64_t end_ns = clock.MonotonicNs();
      {
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->running_since_ns = 0;
        CollectorSnapshot& s = shared->state;
        s.last_duration_seconds = static_cast<double>(end_ns - start_ns) * 1e-9;
        if (readings.ok()) {
          auto collection = std::make_shared<Collection>();
          collection->wall_ns = clock.WallNs();
          collection->duration_seconds = s.last_duration_seconds;
          collection->window_seconds = static_cast<double>(start_ns - previous_ns) * 1e-9;
          collection->devices = shared->session->devices();
          collection->readings = std::move(readings).value();
          collection->energy_sources =
              shared->energy_audit.Apply(collection->readings, collection->window_seconds);
          s.up = true;
          s.reason.clear();
          s.last_success_ns = collection->wall_ns;
          s.latest = std::move(collection);
        } else {
          s.up = false;
          s.reason = readings.error().message;
          s.latest = nullptr;
        }
        if (shared->stop) break;
        callback = shared->on_collected;  // copied under the lock: Stop() clears it
      }
      previous_ns = start_ns;
      if (callback) callback();
      // Keep the schedule; after an overrun, start again one interval after it ended.
      next_ns += shared->interval_ns;
      if (next_ns < end_ns) next_ns = end_ns + shared->interval_ns;
    }
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->finished = true;
    shared->wake.notify_all();
  });
}

bool BackendCollector::Stop(double wait_seconds) {
  if (!thread_.joinable()) return true;
  std::unique_lock<std::mutex> lock(shared_->mutex);
  shared_->stop = true;
  shared_->on_collected = nullptr;
  shared_->wake.notify_all();
  const bool finished = shared_->wake.wait_for(lock, std::chrono::duration<double>(wait_seconds),
                                               [&] { return shared_->finished; });
  lock.unlock();
  if (finished) {
    thread_.join();
  } else {
    thread_.detach();
  }
  return finished;
}

CollectorSnapshot BackendCollector::state() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  CollectorSnapshot s = shared_->state;
  if (shared_->running_since_ns != 0) {
    const int64_t running_ns = shared_->clock->MonotonicNs() - shared_->running_since_ns;
    if (running_ns > shared_->deadline_ns) {
      s.up = false;
      s.reason = fmt::format("collection has run {:.1f} s, past the {:.1f} s deadline",
                             static_cast<double>(running_ns) * 1e-9,
                             static_cast<double>(shared_->deadline_ns) * 1e-9);
      s.latest = nullptr;
    }
  }
  return s;
}

}  // namespace xpuperf::exporter

#include "xpuperf/alerts/notifier_thread.h"

#include <chrono>

namespace xpuperf::alerts {

NotifierThread::NotifierThread(Notifier notifier, std::function<int64_t()> now_ms)
    : notifier_(std::move(notifier)), now_ms_(std::move(now_ms)) {
  notifier_.set_cancel(&cancel_);
  published_ = notifier_.receivers();
  thread_ = std::thread([this] { Run(); });
}

NotifierThread::~NotifierThread() { Stop(); }

int64_t NotifierThread::Now() const {
  if (now_ms_) return now_ms_();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void NotifierThread::Update(const std::vector<const Alert*>& alerts, int64_t now_ms) {
  std::vector<Alert> copy;
  copy.reserve(alerts.size());
  for (const Alert* a : alerts) copy.push_back(*a);
  {
    std::lock_guard lock(mutex_);
    latest_.emplace(std::move(copy), now_ms);  // an older, unprocessed one is superseded
  }
  wake_.notify_one();
}

std::vector<ReceiverState> NotifierThread::receivers() const {
  std::lock_guard lock(mutex_);
  return published_;
}

void NotifierThread::Stop() {
  cancel_.store(true);
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NotifierThread::Run() {
  for (;;) {
    std::optional<std::pair<std::vector<Alert>, int64_t>> update;
    {
      std::unique_lock lock(mutex_);
      const std::optional<int64_t> due = notifier_.NextDueMs();
      auto ready = [&] { return stop_ || latest_.has_value() || (due && *due <= Now()); };
      if (due) {
        // Woken early by an update or a stop; otherwise at the next retry.
        const int64_t wait_ms = std::max<int64_t>(0, std::min<int64_t>(*due - Now(), 1000));
        wake_.wait_for(lock, std::chrono::milliseconds(wait_ms), ready);
      } else {
        wake_.wait(lock, ready);
      }
      if (stop_) return;
      update.swap(latest_);
    }
    if (update) {
      std::vector<const Alert*> pointers;
      pointers.reserve(update->first.size());
      for (const Alert& a : update->first) pointers.push_back(&a);
      notifier_.Update(pointers, update->second);
    }
    notifier_.DeliverDue(update ? std::max(update->second, Now()) : Now());
    std::lock_guard lock(mutex_);
    published_ = notifier_.receivers();
  }
}

}  // namespace xpuperf::alerts

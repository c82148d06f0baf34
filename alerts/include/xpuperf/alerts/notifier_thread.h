// Delivery of notifications off the evaluating thread. The rule engine hands each evaluation's
// alerts over (copied, O(alerts)) and goes on; a thread of its own queues and posts them through
// the Notifier, each post bounded by a total deadline (connect, send and the whole answer) and
// cancelled at once by Stop(). So a slow, silent or trickling Alertmanager never delays an
// evaluation, a scrape or a shutdown: while it hangs, new notifications wait in the Notifier's
// bounded queue (oldest dropped and counted when full).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "xpuperf/alerts/notifier.h"

namespace xpuperf::alerts {

class NotifierThread {
 public:
  // `now_ms`: the clock deliveries are due by (wall-clock milliseconds unless a test gives one).
  explicit NotifierThread(Notifier notifier, std::function<int64_t()> now_ms = {});
  ~NotifierThread();  // stops
  NotifierThread(const NotifierThread&) = delete;
  NotifierThread& operator=(const NotifierThread&) = delete;

  // From the evaluating thread: the alerts after an evaluation at `now_ms`. Never waits on a post.
  void Update(const std::vector<const Alert*>& alerts, int64_t now_ms);
  // The receivers' queues and counters as of the last delivery round (for the state file).
  std::vector<ReceiverState> receivers() const;
  // Cancels a post in flight, ends the thread; what was not delivered stays in receivers().
  void Stop();

 private:
  void Run();
  int64_t Now() const;

  Notifier notifier_;  // only the thread touches it after the start
  std::function<int64_t()> now_ms_;
  std::atomic<bool> cancel_{false};

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<std::pair<std::vector<Alert>, int64_t>> latest_;  // the newest evaluation's
  std::vector<ReceiverState> published_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace xpuperf::alerts

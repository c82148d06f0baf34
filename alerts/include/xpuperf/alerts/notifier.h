// Notifications of the built-in engine's alerts:
//  - Alertmanager (v2 API): POST /api/v2/alerts with every firing alert, re-sent every
//    `resend_interval` with endsAt = now + 4 x max(resend, evaluation interval) as Prometheus does,
//    and once more with endsAt = the resolution time when it resolves;
//  - webhooks: Alertmanager's webhook payload (version 4), one message per alert name when alerts
//    start firing or resolve, repeated every `repeat_interval` while firing.
// Deliveries wait in a bounded queue per receiver (the oldest is dropped when full, and counted);
// 5xx answers and network errors are retried with exponential backoff, other answers are not.
// What was delivered is part of the state file (state_file.h), so a restart neither loses nor
// repeats a notification. Not thread-safe: the evaluating thread calls Update and DeliverDue.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/alerts/rule_engine.h"
#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

enum class ReceiverKind { kAlertmanager, kWebhook };

struct ReceiverConfig {
  std::string name;  // for logs, the state file and the webhook payload's `receiver`
  ReceiverKind kind = ReceiverKind::kAlertmanager;
  std::string url;  // Alertmanager base URL (http://127.0.0.1:9093) or the webhook's full URL
  std::string basic_auth_user, basic_auth_password;  // optional
  std::string bearer_token;                          // optional
  std::string ca_file;                               // https: CA bundle; empty = system
};

struct NotifierOptions {
  int64_t resend_interval_ms = 60'000;      // Alertmanager: Prometheus' --rules.alert.resend-delay
  int64_t evaluation_interval_ms = 60'000;  // for endsAt
  int64_t repeat_interval_ms =
      int64_t{4} * 3'600'000;    // webhook: Alertmanager's default repeat_interval
  size_t queue_capacity = 1000;  // deliveries waiting per receiver
  int64_t initial_backoff_ms = 1'000;
  int64_t max_backoff_ms = 60'000;
  int max_attempts = 10;        // then the delivery is dropped (and counted)
  double timeout_seconds = 10;  // one post in all: connect, send and the whole answer
  std::string external_url;     // generatorURL / externalURL
};

// One HTTP POST; returns the status code, or an error for a network failure.
struct HttpPost {
  std::string url;
  std::string body;  // JSON
  const ReceiverConfig* receiver = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // set: the post is abandoned at once
};
using HttpPoster = std::function<Result<int>(const HttpPost&)>;
// POSTs with cpp-httplib (http and https). `timeout_seconds` bounds the whole post (a watchdog
// shuts the connection down at the deadline, or when the post's `cancel` is set), not only each
// read: a peer that trickles its answer cannot hold the caller longer.
HttpPoster DefaultHttpPoster(double timeout_seconds);

struct Delivery {
  std::string body;
  int attempts = 0;
  int64_t next_attempt_ms = 0;
  // Alerts (label keys) and the state this delivery tells about, marked delivered on success.
  std::vector<std::pair<std::string, AlertState>> alerts;
};

struct ReceiverStats {
  uint64_t sent = 0, failed = 0, dropped = 0, retried = 0;
};

struct ReceiverState {
  ReceiverConfig config;
  std::deque<Delivery> queue;
  // Per alert (label key): when it was last queued.
  std::map<std::string, int64_t> last_queued_ms;
  std::map<std::string, AlertState> queued_state;  // the state last queued for sending
  ReceiverStats stats;
  std::string last_error;
};

class Notifier {
 public:
  Notifier(std::vector<ReceiverConfig> receivers, NotifierOptions options, HttpPoster poster);

  // Queues what the current alerts need sent (call after each evaluation).
  void Update(const std::vector<const Alert*>& alerts, int64_t now_ms);
  // Sends what is due; returns how many deliveries succeeded. Stops early once cancelled.
  int DeliverDue(int64_t now_ms);
  // When the next queued delivery is due; none when every queue is empty.
  std::optional<int64_t> NextDueMs() const;
  // Posts in flight are abandoned, and DeliverDue returns, once `*cancel` is set.
  void set_cancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }

  std::vector<ReceiverState>& receivers() { return receivers_; }
  const NotifierOptions& options() const { return options_; }
  const std::vector<ReceiverState>& receivers() const { return receivers_; }

  // JSON bodies, exposed for tests.
  static std::string AlertmanagerBody(const std::vector<const Alert*>& alerts,
                                      const NotifierOptions& options, int64_t now_ms);
  static std::string WebhookBody(const std::string& receiver, const std::string& alertname,
                                 const std::vector<const Alert*>& alerts,
                                 const NotifierOptions& options);

 private:
  void Enqueue(ReceiverState& receiver, Delivery delivery);

  std::vector<ReceiverState> receivers_;
  NotifierOptions options_;
  HttpPoster poster_;
  const std::atomic<bool>* cancel_ = nullptr;
};

// A receiver URL given on the command line: http:// or https://, a host, an optional port in
// 1..65535, an optional path, no blanks or control characters. The error names `option`.
Status ValidateReceiverUrl(std::string_view url, std::string_view option);

// Alertmanager's fingerprint of a label set (FNV-1a 64 over sorted names and values), as hex.
std::string AlertFingerprint(const Labels& labels);
// RFC 3339 with milliseconds, UTC.
std::string Rfc3339(int64_t unix_ms);

}  // namespace xpuperf::alerts

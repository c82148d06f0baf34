// `xpuperf capture --on-alert`: detect, capture, analyse in one loop. An HTTP(S) endpoint that
// Alertmanager (or `serve --rules --webhook`) posts its webhook messages to; for each firing alert
// that opts in (alert_trigger.h) it captures the node's processes through that node's agent
// (RunCapture, one host), analyses the capture and attaches the findings to the alert by posting
// a findings alert to Alertmanager's v2 API: the alert's labels with xpuperf_capture="findings"
// and its annotations plus xpuperf_findings, xpuperf_capture_dir, xpuperf_capture_id and
// xpuperf_capture_status. When the alert resolves, so does its findings alert.
//
// Why a findings alert and not the same alert with more annotations: Alertmanager keeps the last
// annotations it was sent for a label set, and the rule's evaluator (Prometheus, or the built-in
// engine) re-sends the alert every minute with the rule's own annotations, so added annotations
// would vanish within a minute; and a change of annotations alone never makes Alertmanager notify.
// A findings alert in the same group is a new alert: the next notification of the group carries it.
//
// Security as `serve` and `agent`: loopback unless told otherwise, and any other address needs a
// web config with TLS or basic-auth users; bodies are at most kMaxWebhookBodyBytes (413 beyond),
// anything that is not a version-4 webhook message gets 400 and one log line.
//
// Thread-safety: Start/Stop from one thread; requests and captures run on their own threads.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "xpuperf/alerts/notifier.h"
#include "xpuperf/capture/alert_trigger.h"
#include "xpuperf/capture/capture.h"
#include "xpuperf/core/status.h"

namespace xpuperf::capture {

inline constexpr int kDefaultAlertReceiverPort = 10878;  // next to serve's 10877

// Turns a capture directory (manifest.json and its host folders) into a findings summary of a
// few lines; the cli supplies the trace analysis (or says it is not built in).
using CaptureAnalyser = std::function<Result<std::string>(const std::string& capture_dir)>;

struct AlertReceiverOptions {
  std::string listen_host = "127.0.0.1";
  int port = kDefaultAlertReceiverPort;               // 0 = the OS picks one (tests)
  std::string web_config_path;                        // TLS and basic auth; required off loopback
  std::vector<alerts::ReceiverConfig> alertmanagers;  // where findings alerts go
  TriggerPolicy policy;
  // The settings of every capture: security, start_in_seconds, wait_seconds, job_id, pids,
  // process_limit, max_file_bytes, rpc_timeout_seconds. hosts, duration and out_dir are set per
  // alert.
  CaptureOptions capture;
  std::string out_root;  // captures go to out_root/<capture id>/
  // Capture folders kept per alert name and node in out_root; at the limit a firing alert is
  // skipped (and says why) until old folders are removed.
  int max_captures_per_alert = 50;
  std::chrono::milliseconds findings_ttl = std::chrono::hours(4);  // endsAt of a findings alert
  size_t max_findings_bytes = 4096;                                // xpuperf_findings is cut here
  CaptureAnalyser analyse;
  alerts::HttpPoster poster;  // POSTs to Alertmanager (alerts::DefaultHttpPoster)
  int post_attempts = 3;      // 5xx and network errors are retried after 1 s, 2 s, ...
  std::ostream* log = nullptr;
};

class AlertReceiver {
 public:
  // Checks the options (out_root writable, policy bounds), reads the web config and binds.
  static Result<std::unique_ptr<AlertReceiver>> Start(AlertReceiverOptions options);
  ~AlertReceiver();  // Stop()

  int port() const;
  bool tls() const;
  // The last decisions as JSON (newest last), as GET /api/v1/decisions serves them.
  std::string DecisionsJson() const;
  // Handles one webhook body as a POST would; returns the HTTP status (200, 400).
  int HandleWebhook(const std::string& body);
  // Stops listening, cancels running captures (they end within ~1 s) and waits for them.
  void Stop();

  class Impl;

 private:
  explicit AlertReceiver(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// The findings alert of `alert` (Alertmanager v2 postableAlert, one array element): ends at
// `ends_at_ms`.
std::string FindingsAlertJson(const ReceivedAlert& alert, const std::string& findings,
                              const std::string& capture_id, const std::string& capture_dir,
                              bool capture_ok, int64_t starts_at_ms, int64_t ends_at_ms);

}  // namespace xpuperf::capture

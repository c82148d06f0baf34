// `serve --rules`: the built-in rule engine over the exporter's own snapshots. Each new snapshot
// becomes one sample per series in the engine's history (a series missing from a snapshot gets a
// staleness marker, as a Prometheus scrape would write), the rules are evaluated at the snapshot's
// time, notifications are queued and delivered, and the state file is written. Active alerts are
// exported as `xpuperf_alerts{alertname, alertstate, ...}` through the exporter's series hook.
// Thread-safe: the listener only hands snapshots over; one worker thread does the rest.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/alerts/notifier.h"
#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/core/status.h"
#include "xpuperf/exporter/exporter.h"

namespace xpuperf::serve {

struct ServeAlertOptions {
  std::vector<std::string> rule_files;
  std::vector<std::string> alertmanagers;  // base URLs
  std::vector<std::string> webhooks;       // full URLs
  std::string state_file;                  // empty = state kept in memory only
  std::string external_url;
  double resend_seconds = 60;
};

class ServeAlerts {
 public:
  // Loads the rule files (the first bad one is the error), restores the state file, registers
  // the listener and the series provider on `exporter` and starts the worker.
  static Result<std::unique_ptr<ServeAlerts>> Start(exporter::Exporter& exporter,
                                                    const ServeAlertOptions& options,
                                                    std::ostream& log);
  ~ServeAlerts();  // stops the worker and writes the state file a last time
  ServeAlerts(const ServeAlerts&) = delete;
  ServeAlerts& operator=(const ServeAlerts&) = delete;

  size_t rule_count() const;

  class Impl;

 private:
  explicit ServeAlerts(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

}  // namespace xpuperf::serve

// Alertmanager's webhook payload (version 4), as `xpuperf capture --on-alert` receives it: the
// message a `webhook_configs` receiver POSTs for one alert group (notify/webhook/webhook.go of
// Alertmanager 0.25; the built-in engine's webhook notifier sends the same shape).
//
// Only what automatic capture needs is kept; unknown fields are ignored, as Alertmanager's own
// clients do. Everything is bounded: at most kMaxWebhookAlerts alerts, kMaxAlertPairs labels and
// annotations per alert, label names as Prometheus allows them, values at most kMaxValueBytes.
//
// Thread-safety: reentrant.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::capture {

inline constexpr size_t kMaxWebhookBodyBytes = 1 << 20;  // the receiver refuses larger bodies (413)
inline constexpr size_t kMaxWebhookAlerts = 1000;
inline constexpr size_t kMaxAlertPairs = 128;                // labels, and annotations, per alert
inline constexpr size_t kMaxValueBytes = size_t{64} * 1024;  // one label or annotation value

struct ReceivedAlert {
  std::string status;  // "firing" or "resolved"
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::string starts_at, ends_at;  // RFC 3339 as sent
  std::string fingerprint;         // may be empty (the push API has none)
  std::string generator_url;
  bool firing() const { return status == "firing"; }
};

struct WebhookMessage {
  std::string version;  // "4"
  std::string status;   // of the group
  std::string receiver;
  std::string group_key;
  std::vector<ReceivedAlert> alerts;
};

// kParse with a one-line reason (the field at fault) for anything that is not a version-4
// webhook message within the bounds above.
Result<WebhookMessage> ParseWebhookMessage(std::string_view body);

// Prometheus' label-name rule: [a-zA-Z_][a-zA-Z0-9_]*.
bool IsValidLabelName(std::string_view name);

}  // namespace xpuperf::capture

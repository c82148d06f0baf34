// The alert state file of `serve --rules`: every pending, firing and recently resolved alert
// (with its activeAt/firedAt times) and, per receiver, what was queued and what still waits to be
// delivered. Written atomically (a temporary file in the same directory, fsync, rename), so a
// crash leaves the previous state, never a partial one; read back at start so a restart neither
// loses an alert (its `for` timer and startsAt continue) nor sends one twice.
#pragma once

#include <string>
#include <vector>

#include "xpuperf/alerts/notifier.h"
#include "xpuperf/alerts/rule_engine.h"
#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

struct AlertStateSnapshot {
  int64_t written_at_ms = 0;
  std::vector<Alert> alerts;
  std::vector<ReceiverState> receivers;  // config.name identifies each; config is not stored
};

std::string SerializeAlertState(const AlertStateSnapshot& snapshot);
Result<AlertStateSnapshot> ParseAlertState(std::string_view text);

Status WriteAlertStateFile(const std::string& path, const AlertStateSnapshot& snapshot);
// kNotFound when the file does not exist (a first start).
Result<AlertStateSnapshot> ReadAlertStateFile(const std::string& path);

// Puts the receivers' saved queues and maps into `notifier` (matched by receiver name).
void RestoreReceivers(const std::vector<ReceiverState>& saved, Notifier& notifier);

}  // namespace xpuperf::alerts

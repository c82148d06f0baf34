#include "xpuperf/alerts/state_file.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "xpuperf/core/input_file.h"
#include "xpuperf/core/output_file.h"

namespace xpuperf::alerts {
namespace {

using nlohmann::json;

constexpr int kSchemaVersion = 1;

// A field that is present but not an integer of the target's range (a float, 1e30, a negative
// count): json::get would convert it with undefined behaviour, so it is refused by name.
struct BadInteger {
  std::string key;
};

template <typename Integer>
Integer IntegerValue(const json& v, const std::string& key) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<Integer>::max())) {
      return static_cast<Integer>(u);
    }
  } else if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i >= static_cast<int64_t>(std::numeric_limits<Integer>::min()) &&
        (i < 0 ||
         static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<Integer>::max()))) {
      return static_cast<Integer>(i);
    }
  }
  throw BadInteger{key};
}

template <typename Integer>
Integer IntegerAt(const json& object, const char* key) {
  return IntegerValue<Integer>(object.at(key), key);
}

// Milliseconds since 1970 that RFC 3339 can write (up to 9999-12-31T23:59:59.999Z): a negative
// or huge time from a damaged file would reach Alertmanager as an invalid timestamp.
constexpr int64_t kLastWritableMs = 253402300799999;

int64_t TimeValue(const json& v, const std::string& key) {
  const auto ms = IntegerValue<int64_t>(v, key);
  if (ms < 0 || ms > kLastWritableMs) throw BadInteger{key + " (a time between 1970 and 9999)"};
  return ms;
}

int64_t TimeAt(const json& object, const char* key) { return TimeValue(object.at(key), key); }

AlertState StateFromName(const std::string& name) {
  if (name == "firing") return AlertState::kFiring;
  if (name == "pending") return AlertState::kPending;
  return AlertState::kInactive;
}

json AlertJson(const Alert& a) {
  json labels = json::object();
  for (const auto& [k, v] : a.labels.items()) labels[k] = v;
  json annotations = json::array();
  for (const auto& [k, v] : a.annotations) annotations.push_back({k, v});
  return {{"rule", a.rule},
          {"labels", labels},
          {"annotations", annotations},
          {"value", a.value},
          {"state", AlertStateName(a.state)},
          {"active_at_ms", a.active_at_ms},
          {"fired_at_ms", a.fired_at_ms},
          {"resolved_at_ms", a.resolved_at_ms},
          {"keep_firing_since_ms", a.keep_firing_since_ms}};
}

Alert AlertFromJson(const json& j) {
  Alert a;
  a.rule = j.at("rule").get<std::string>();
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& [k, v] : j.at("labels").items()) items.emplace_back(k, v.get<std::string>());
  a.labels = Labels(std::move(items));
  for (const json& pair : j.at("annotations")) {
    a.annotations.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  }
  // JSON has no NaN: nlohmann writes it as null.
  a.value = j.at("value").is_null() ? NAN : j.at("value").get<double>();
  a.state = StateFromName(j.at("state").get<std::string>());
  a.active_at_ms = TimeAt(j, "active_at_ms");
  a.fired_at_ms = TimeAt(j, "fired_at_ms");
  a.resolved_at_ms = TimeAt(j, "resolved_at_ms");
  a.keep_firing_since_ms = TimeAt(j, "keep_firing_since_ms");
  return a;
}

}  // namespace

std::string SerializeAlertState(const AlertStateSnapshot& snapshot) {
  json root;
  root["schema_version"] = kSchemaVersion;
  root["written_at_ms"] = snapshot.written_at_ms;
  root["alerts"] = json::array();
  for (const Alert& a : snapshot.alerts) root["alerts"].push_back(AlertJson(a));
  root["receivers"] = json::array();
  for (const ReceiverState& r : snapshot.receivers) {
    json receiver;
    receiver["name"] = r.config.name;
    receiver["last_queued_ms"] = r.last_queued_ms;
    json states = json::object();
    for (const auto& [key, state] : r.queued_state) states[key] = AlertStateName(state);
    receiver["queued_state"] = states;
    receiver["queue"] = json::array();
    for (const Delivery& d : r.queue) {
      json alerts = json::array();
      for (const auto& [key, state] : d.alerts) alerts.push_back({key, AlertStateName(state)});
      receiver["queue"].push_back({{"body", d.body},
                                   {"attempts", d.attempts},
                                   {"next_attempt_ms", d.next_attempt_ms},
                                   {"alerts", alerts}});
    }
    receiver["stats"] = {{"sent", r.stats.sent},
                         {"failed", r.stats.failed},
                         {"dropped", r.stats.dropped},
                         {"retried", r.stats.retried}};
    receiver["last_error"] = r.last_error;
    root["receivers"].push_back(std::move(receiver));
  }
  return root.dump(1);
}

Result<AlertStateSnapshot> ParseAlertState(std::string_view text) {
  AlertStateSnapshot snapshot;
  try {
    const json root = json::parse(text);
    if (IntegerAt<int>(root, "schema_version") != kSchemaVersion) {
      return MakeError(ErrorCode::kParse, "alert state file: unknown schema_version");
    }
    snapshot.written_at_ms = TimeAt(root, "written_at_ms");
    for (const json& a : root.at("alerts")) snapshot.alerts.push_back(AlertFromJson(a));
    for (const json& r : root.at("receivers")) {
      ReceiverState state;
      state.config.name = r.at("name").get<std::string>();
      for (const auto& [key, value] : r.at("last_queued_ms").items()) {
        state.last_queued_ms[key] = TimeValue(value, "last_queued_ms");
      }
      for (const auto& [key, value] : r.at("queued_state").items()) {
        state.queued_state[key] = StateFromName(value.get<std::string>());
      }
      for (const json& d : r.at("queue")) {
        Delivery delivery;
        delivery.body = d.at("body").get<std::string>();
        delivery.attempts = IntegerAt<int>(d, "attempts");
        if (delivery.attempts < 0) throw BadInteger{"attempts"};
        delivery.next_attempt_ms = TimeAt(d, "next_attempt_ms");
        for (const json& pair : d.at("alerts")) {
          delivery.alerts.emplace_back(pair.at(0).get<std::string>(),
                                       StateFromName(pair.at(1).get<std::string>()));
        }
        state.queue.push_back(std::move(delivery));
      }
      const json& stats = r.at("stats");
      state.stats = {IntegerAt<uint64_t>(stats, "sent"), IntegerAt<uint64_t>(stats, "failed"),
                     IntegerAt<uint64_t>(stats, "dropped"), IntegerAt<uint64_t>(stats, "retried")};
      state.last_error = r.at("last_error").get<std::string>();
      snapshot.receivers.push_back(std::move(state));
    }
  } catch (const json::exception& e) {
    return MakeError(ErrorCode::kParse, fmt::format("alert state file: {}", e.what()));
  } catch (const BadInteger& bad) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("alert state file: '{}' is not an integer in range", bad.key));
  }
  return snapshot;
}

Status WriteAlertStateFile(const std::string& path, const AlertStateSnapshot& snapshot) {
  // The project's output policy: a temporary file in the same directory, renamed into place.
  return WriteOutputFile(path, SerializeAlertState(snapshot));
}

Result<AlertStateSnapshot> ReadAlertStateFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, 256 << 20));
  auto snapshot = ParseAlertState(text);
  if (!snapshot.ok()) {
    return MakeError(ErrorCode::kParse, fmt::format("{}: {}", path, snapshot.error().message));
  }
  return snapshot;
}

void RestoreReceivers(const std::vector<ReceiverState>& saved, Notifier& notifier) {
  for (ReceiverState& receiver : notifier.receivers()) {
    for (const ReceiverState& s : saved) {
      if (s.config.name != receiver.config.name) continue;
      // The queue's cap holds on restore too (the newest are kept), and a restored delivery is
      // due at once: a retry time from the file cannot hold the queue back.
      const size_t capacity = notifier.options().queue_capacity;
      const size_t skip = s.queue.size() > capacity ? s.queue.size() - capacity : 0;
      receiver.queue.assign(s.queue.begin() + static_cast<std::ptrdiff_t>(skip), s.queue.end());
      for (Delivery& d : receiver.queue) d.next_attempt_ms = 0;
      receiver.last_queued_ms = s.last_queued_ms;
      receiver.queued_state = s.queued_state;
      receiver.stats = s.stats;
      receiver.stats.dropped += skip;
      receiver.last_error = s.last_error;
    }
  }
}

}  // namespace xpuperf::alerts

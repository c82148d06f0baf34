#include "xpuperf/alerts/notifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "xpuperf/core/utc_time.h"

namespace xpuperf::alerts {
namespace {

using nlohmann::json;

json LabelsJson(const Labels& labels) {
  json out = json::object();
  for (const auto& [name, value] : labels.items()) out[name] = value;
  return out;
}

json PairsJson(const std::vector<std::pair<std::string, std::string>>& pairs) {
  json out = json::object();
  for (const auto& [name, value] : pairs) out[name] = value;
  return out;
}

bool Sendable(const Alert& a) { return a.state != AlertState::kPending; }

}  // namespace

std::string AlertFingerprint(const Labels& labels) {
  uint64_t hash = 14695981039346656037ULL;
  auto add = [&](std::string_view s) {
    for (unsigned char c : s) {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
  };
  for (const auto& [name, value] : labels.items()) {
    add(name);
    add(std::string_view("\xff", 1));
    add(value);
    add(std::string_view("\xff", 1));
  }
  return fmt::format("{:016x}", hash);
}

std::string Rfc3339(int64_t unix_ms) { return UtcTimestamp(unix_ms * 1'000'000, 3); }

Notifier::Notifier(std::vector<ReceiverConfig> receivers, NotifierOptions options,
                   HttpPoster poster)
    : options_(std::move(options)), poster_(std::move(poster)) {
  for (ReceiverConfig& config : receivers) {
    ReceiverState state;
    state.config = std::move(config);
    receivers_.push_back(std::move(state));
  }
}

std::string Notifier::AlertmanagerBody(const std::vector<const Alert*>& alerts,
                                       const NotifierOptions& options, int64_t now_ms) {
  json body = json::array();
  const int64_t valid_ms = 4 * std::max(options.resend_interval_ms, options.evaluation_interval_ms);
  for (const Alert* a : alerts) {
    json item;
    item["labels"] = LabelsJson(a->labels);
    item["annotations"] = PairsJson(a->annotations);
    item["startsAt"] = Rfc3339(a->fired_at_ms != 0 ? a->fired_at_ms : a->active_at_ms);
    item["endsAt"] =
        Rfc3339(a->state == AlertState::kInactive ? a->resolved_at_ms : now_ms + valid_ms);
    if (!options.external_url.empty()) item["generatorURL"] = options.external_url;
    body.push_back(std::move(item));
  }
  return body.dump();
}

std::string Notifier::WebhookBody(const std::string& receiver, const std::string& alertname,
                                  const std::vector<const Alert*>& alerts,
                                  const NotifierOptions& options) {
  json body;
  body["version"] = "4";
  body["groupKey"] = fmt::format("{{}}:{{alertname=\"{}\"}}", alertname);
  body["truncatedAlerts"] = 0;
  bool any_firing = false;
  for (const Alert* a : alerts) any_firing |= a->state == AlertState::kFiring;
  body["status"] = any_firing ? "firing" : "resolved";
  body["receiver"] = receiver;
  body["groupLabels"] = json{{"alertname", alertname}};
  // Labels and annotations every alert of the message has with the same value.
  json common_labels = alerts.empty() ? json::object() : LabelsJson(alerts.front()->labels);
  json common_annotations =
      alerts.empty() ? json::object() : PairsJson(alerts.front()->annotations);
  json list = json::array();
  for (const Alert* a : alerts) {
    const json labels = LabelsJson(a->labels);
    const json annotations = PairsJson(a->annotations);
    for (auto* common : {&common_labels, &common_annotations}) {
      const json& own = common == &common_labels ? labels : annotations;
      for (auto it = common->begin(); it != common->end();) {
        if (!own.contains(it.key()) || own[it.key()] != it.value()) {
          it = common->erase(it);
        } else {
          ++it;
        }
      }
    }
    json item;
    item["status"] = a->state == AlertState::kFiring ? "firing" : "resolved";
    item["labels"] = labels;
    item["annotations"] = annotations;
    item["startsAt"] = Rfc3339(a->fired_at_ms != 0 ? a->fired_at_ms : a->active_at_ms);
    // Alertmanager writes Go's zero time for alerts without an end.
    item["endsAt"] = a->state == AlertState::kFiring ? std::string("0001-01-01T00:00:00Z")
                                                     : Rfc3339(a->resolved_at_ms);
    item["generatorURL"] = options.external_url;
    item["fingerprint"] = AlertFingerprint(a->labels);
    list.push_back(std::move(item));
  }
  body["commonLabels"] = common_labels;
  body["commonAnnotations"] = common_annotations;
  body["externalURL"] = options.external_url;
  body["alerts"] = std::move(list);
  return body.dump();
}

void Notifier::Enqueue(ReceiverState& receiver, Delivery delivery) {
  if (receiver.queue.size() >= options_.queue_capacity) {
    receiver.queue.pop_front();  // the oldest news is the least useful
    receiver.stats.dropped++;
  }
  receiver.queue.push_back(std::move(delivery));
}

void Notifier::Update(const std::vector<const Alert*>& alerts, int64_t now_ms) {
  std::set<std::string> present;
  for (const Alert* a : alerts) present.insert(a->labels.Key());
  for (ReceiverState& receiver : receivers_) {
    if (receiver.config.kind == ReceiverKind::kAlertmanager) {
      std::vector<const Alert*> batch;
      Delivery delivery;
      for (const Alert* a : alerts) {
        if (!Sendable(*a)) continue;
        const std::string key = a->labels.Key();
        auto last = receiver.last_queued_ms.find(key);
        const bool never = last == receiver.last_queued_ms.end();
        bool needs = false;
        if (a->state == AlertState::kInactive) {
          // The resolution, once; nothing for alerts Alertmanager never heard of.
          needs = !never && receiver.queued_state[key] == AlertState::kFiring;
        } else {
          needs = never || receiver.queued_state[key] != AlertState::kFiring ||
                  last->second + options_.resend_interval_ms <= now_ms;
        }
        if (!needs) continue;
        batch.push_back(a);
        receiver.last_queued_ms[key] = now_ms;
        receiver.queued_state[key] = a->state;
        delivery.alerts.emplace_back(key, a->state);
      }
      if (!batch.empty()) {
        delivery.body = AlertmanagerBody(batch, options_, now_ms);
        delivery.next_attempt_ms = now_ms;
        Enqueue(receiver, std::move(delivery));
      }
    } else {
      std::map<std::string, std::vector<const Alert*>> by_name;
      std::set<std::string> changed_names;
      for (const Alert* a : alerts) {
        if (!Sendable(*a)) continue;
        const std::string key = a->labels.Key();
        auto state = receiver.queued_state.find(key);
        const bool was_firing =
            state != receiver.queued_state.end() && state->second == AlertState::kFiring;
        if (a->state == AlertState::kInactive && !was_firing) continue;
        by_name[a->rule].push_back(a);
        const bool repeat = a->state == AlertState::kFiring && was_firing &&
                            receiver.last_queued_ms[key] + options_.repeat_interval_ms <= now_ms;
        if ((a->state == AlertState::kFiring) != was_firing || repeat) {
          changed_names.insert(a->rule);
        }
      }
      for (const std::string& name : changed_names) {
        Delivery delivery;
        std::vector<const Alert*> message;
        for (const Alert* a : by_name[name]) {
          const std::string key = a->labels.Key();
          message.push_back(a);
          receiver.last_queued_ms[key] = now_ms;
          receiver.queued_state[key] = a->state;
          delivery.alerts.emplace_back(key, a->state);
        }
        delivery.body = WebhookBody(receiver.config.name, name, message, options_);
        delivery.next_attempt_ms = now_ms;
        Enqueue(receiver, std::move(delivery));
      }
    }
    // Forget alerts the engine no longer holds.
    for (auto it = receiver.last_queued_ms.begin(); it != receiver.last_queued_ms.end();) {
      if (present.contains(it->first)) {
        ++it;
      } else {
        receiver.queued_state.erase(it->first);
        it = receiver.last_queued_ms.erase(it);
      }
    }
  }
}

int Notifier::DeliverDue(int64_t now_ms) {
  int delivered = 0;
  for (ReceiverState& receiver : receivers_) {
    // In order: a later delivery never overtakes an earlier one for the same receiver.
    while (!receiver.queue.empty() && receiver.queue.front().next_attempt_ms <= now_ms) {
      if (cancel_ != nullptr && cancel_->load()) return delivered;
      Delivery& d = receiver.queue.front();
      const std::string url = receiver.config.kind == ReceiverKind::kAlertmanager
                                  ? receiver.config.url + "/api/v2/alerts"
                                  : receiver.config.url;
      Result<int> status = poster_({url, d.body, &receiver.config, cancel_});
      d.attempts++;
      if (status.ok() && *status >= 200 && *status < 300) {
        receiver.stats.sent++;
        receiver.last_error.clear();
        receiver.queue.pop_front();
        delivered++;
        continue;
      }
      const bool retry = !status.ok() || *status >= 500;
      receiver.last_error = status.ok() ? fmt::format("HTTP {}", *status) : status.error().message;
      if (!retry) {
        receiver.stats.failed++;  // 4xx: the receiver refuses this body; resending cannot help
        receiver.queue.pop_front();
        continue;
      }
      if (d.attempts >= options_.max_attempts) {
        receiver.stats.dropped++;
        receiver.queue.pop_front();
        continue;
      }
      receiver.stats.retried++;
      const int64_t backoff = std::min(options_.max_backoff_ms,
                                       options_.initial_backoff_ms << std::min(d.attempts - 1, 20));
      d.next_attempt_ms = now_ms + backoff;
      break;
    }
  }
  return delivered;
}

std::optional<int64_t> Notifier::NextDueMs() const {
  std::optional<int64_t> next;
  for (const ReceiverState& receiver : receivers_) {
    if (receiver.queue.empty()) continue;
    const int64_t due = receiver.queue.front().next_attempt_ms;
    if (!next || due < *next) next = due;
  }
  return next;
}

Status ValidateReceiverUrl(std::string_view url, std::string_view option) {
  auto bad = [&](std::string_view why) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("{} '{}': {}", option, url, why));
  };
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else {
    return bad("not an http:// or https:// URL");
  }
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return bad("blank or control character");
  }
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) {
    return bad("credentials in the URL (use a credentials file)");
  }
  std::string_view host = authority;
  std::string_view port;
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return bad("unclosed IPv6 address");
    port = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (!port.empty() && !port.starts_with(':')) return bad("junk after the IPv6 address");
    if (!port.empty()) port.remove_prefix(1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty()) return bad("no host");
  if (authority.find(':') != std::string_view::npos && !authority.starts_with('[') &&
      authority.find(':') != authority.rfind(':')) {
    return bad("an IPv6 address needs brackets");
  }
  if (authority.ends_with(':')) return bad("empty port");
  if (!port.empty()) {
    if (port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return bad("the port is not a number");
    }
    const int number = std::stoi(std::string(port));
    if (number < 1 || number > 65535) return bad("the port is not in 1..65535");
  }
  return Status::Ok();
}

}  // namespace xpuperf::alerts

#include "xpuperf/capture/alert_payload.h"

#include <nlohmann/json.hpp>

namespace xpuperf::capture {

namespace {

using nlohmann::json;

Error Bad(const std::string& why) { return MakeError(ErrorCode::kParse, why); }

// An optional string field; a present non-string is an error.
Status OptionalString(const json& object, const char* key, std::string& out,
                      const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_string()) return Bad(where + "." + key + " is not a string");
  out = it->get<std::string>();
  if (out.size() > kMaxValueBytes) return Bad(where + "." + key + " is too long");
  return {};
}

Status StringMap(const json& object, const char* key, std::map<std::string, std::string>& out,
                 const std::string& where, bool check_names) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_object()) return Bad(where + "." + key + " is not an object");
  if (it->size() > kMaxAlertPairs) {
    return Bad(where + "." + key + " has more than " + std::to_string(kMaxAlertPairs) + " entries");
  }
  for (auto entry = it->begin(); entry != it->end(); ++entry) {
    if (check_names && !IsValidLabelName(entry.key())) {
      return Bad(where + "." + key + ": '" + entry.key().substr(0, 64) +
                 "' is not a valid label name");
    }
    if (!entry.value().is_string()) {
      return Bad(where + "." + key + "." + entry.key().substr(0, 64) + " is not a string");
    }
    const std::string& value = entry.value().get_ref<const std::string&>();
    if (value.size() > kMaxValueBytes) {
      return Bad(where + "." + key + "." + entry.key().substr(0, 64) + " is too long");
    }
    out[entry.key()] = value;
  }
  return {};
}

}  // namespace

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || name.size() > 1024) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

Result<WebhookMessage> ParseWebhookMessage(std::string_view body) {
  if (body.size() > kMaxWebhookBodyBytes) return Bad("body larger than 1 MiB");
  // No exceptions escape: a parse failure is a value (json::parse with allow_exceptions=false).
  const json doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded()) return Bad("body is not JSON");
  if (!doc.is_object()) return Bad("body is not a JSON object");
  WebhookMessage message;
  XPUPERF_RETURN_IF_ERROR(OptionalString(doc, "version", message.version, "message"));
  if (message.version != "4") {
    return Bad("version is '" + message.version.substr(0, 16) +
               "', not \"4\" (Alertmanager's webhook payload)");
  }
  XPUPERF_RETURN_IF_ERROR(OptionalString(doc, "status", message.status, "message"));
  XPUPERF_RETURN_IF_ERROR(OptionalString(doc, "receiver", message.receiver, "message"));
  XPUPERF_RETURN_IF_ERROR(OptionalString(doc, "groupKey", message.group_key, "message"));
  auto alerts = doc.find("alerts");
  if (alerts == doc.end() || !alerts->is_array()) return Bad("alerts is missing or not an array");
  if (alerts->size() > kMaxWebhookAlerts) {
    return Bad("more than " + std::to_string(kMaxWebhookAlerts) + " alerts");
  }
  for (size_t i = 0; i < alerts->size(); ++i) {
    const json& item = (*alerts)[i];
    const std::string where = "alerts[" + std::to_string(i) + "]";
    if (!item.is_object()) return Bad(where + " is not an object");
    ReceivedAlert alert;
    XPUPERF_RETURN_IF_ERROR(OptionalString(item, "status", alert.status, where));
    if (alert.status != "firing" && alert.status != "resolved") {
      return Bad(where + ".status is not \"firing\" or \"resolved\"");
    }
    XPUPERF_RETURN_IF_ERROR(StringMap(item, "labels", alert.labels, where, true));
    if (alert.labels.empty()) return Bad(where + ".labels is missing or empty");
    XPUPERF_RETURN_IF_ERROR(StringMap(item, "annotations", alert.annotations, where, false));
    XPUPERF_RETURN_IF_ERROR(OptionalString(item, "startsAt", alert.starts_at, where));
    XPUPERF_RETURN_IF_ERROR(OptionalString(item, "endsAt", alert.ends_at, where));
    XPUPERF_RETURN_IF_ERROR(OptionalString(item, "fingerprint", alert.fingerprint, where));
    XPUPERF_RETURN_IF_ERROR(OptionalString(item, "generatorURL", alert.generator_url, where));
    message.alerts.push_back(std::move(alert));
  }
  return message;
}

}  // namespace xpuperf::capture

#include "xpuperf/capture/alert_trigger.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "xpuperf/capture/alert_payload.h"

namespace xpuperf::capture {
namespace {

using nlohmann::json;
using Clock = AlertTrigger::Clock;

std::string Message(const json& alerts) {
  return json{{"version", "4"},
              {"groupKey", "{}:{alertname=\"Idle\"}"},
              {"status", "firing"},
              {"receiver", "xpuperf"},
              {"groupLabels", {{"alertname", "Idle"}}},
              {"commonLabels", json::object()},
              {"commonAnnotations", json::object()},
              {"externalURL", "http://am:9093"},
              {"truncatedAlerts", 0},
              {"alerts", alerts}}
      .dump();
}

json Alert(const std::string& status, json labels, json annotations = json::object()) {
  return {{"status", status},
          {"labels", labels},
          {"annotations", annotations},
          {"startsAt", "2026-12-01T10:00:00Z"},
          {"endsAt", "0001-01-01T00:00:00Z"},
          {"generatorURL", "http://prom/graph"},
          {"fingerprint", "0123456789abcdef"}};
}

ReceivedAlert Parsed(json labels, json annotations = json::object(),
                     std::string status = "firing") {
  auto message = ParseWebhookMessage(Message(json::array({Alert(status, labels, annotations)})));
  EXPECT_TRUE(message.ok()) << message.error().message;
  return message->alerts.at(0);
}

TEST(AlertPayload, ReadsAlertmanagersVersion4Message) {
  auto message = ParseWebhookMessage(Message(json::array(
      {Alert("firing", {{"alertname", "Idle"}, {"instance", "node1:10877"}}, {{"summary", "idle"}}),
       Alert("resolved", {{"alertname", "Idle"}, {"instance", "node2:10877"}})})));
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_EQ(message->receiver, "xpuperf");
  ASSERT_EQ(message->alerts.size(), 2u);
  EXPECT_TRUE(message->alerts[0].firing());
  EXPECT_EQ(message->alerts[0].labels.at("instance"), "node1:10877");
  EXPECT_EQ(message->alerts[0].annotations.at("summary"), "idle");
  EXPECT_EQ(message->alerts[0].generator_url, "http://prom/graph");
  EXPECT_FALSE(message->alerts[1].firing());
}

TEST(AlertPayload, RefusesWhatIsNotAWebhookMessageWithTheReason) {
  auto reason = [](const std::string& body) {
    auto m = ParseWebhookMessage(body);
    return m.ok() ? std::string("accepted") : m.error().message;
  };
  EXPECT_EQ(reason("{"), "body is not JSON");
  EXPECT_EQ(reason("[]"), "body is not a JSON object");
  EXPECT_NE(reason(R"({"version":"3","alerts":[]})").find("version is '3'"), std::string::npos);
  EXPECT_NE(reason(R"({"version":4,"alerts":[]})").find("version is not a string"),
            std::string::npos);
  EXPECT_EQ(reason(R"({"version":"4"})"), "alerts is missing or not an array");
  EXPECT_EQ(reason(Message(json::array({1}))), "alerts[0] is not an object");
  EXPECT_EQ(reason(Message(json::array({Alert("pending", {{"a", "b"}})}))),
            "alerts[0].status is not \"firing\" or \"resolved\"");
  EXPECT_EQ(reason(Message(json::array({Alert("firing", json::object())}))),
            "alerts[0].labels is missing or empty");
  EXPECT_NE(reason(Message(json::array({Alert("firing", {{"1bad", "x"}})})))
                .find("not a valid label name"),
            std::string::npos);
  EXPECT_NE(reason(Message(json::array({Alert("firing", {{"a", 5}})}))).find("is not a string"),
            std::string::npos);
  json many = json::array();
  for (size_t i = 0; i <= kMaxWebhookAlerts; ++i) many.push_back(Alert("firing", {{"a", "b"}}));
  EXPECT_NE(reason(Message(many)).find("more than 1000 alerts"), std::string::npos);
  EXPECT_EQ(reason(std::string(kMaxWebhookBodyBytes + 1, ' ')), "body larger than 1 MiB");
}

TEST(AlertTrigger, FindsTheNodesAgentFromTheAlertsLabels) {
  auto agent = [](json labels) {
    auto a = AgentForAlert(Parsed(labels), 1778);
    return a.ok() ? *a : "error: " + a.error().message;
  };
  EXPECT_EQ(agent({{"xpuperf_agent", "10.0.0.5:1900"}, {"instance", "x:1"}}), "10.0.0.5:1900");
  EXPECT_EQ(agent({{"instance", "node1:10877"}}), "node1:1778");
  EXPECT_EQ(agent({{"instance", "[fd00::1]:10877"}}), "[fd00::1]:1778");
  EXPECT_EQ(agent({{"hostname", "gpu-17"}}), "gpu-17:1778");
  EXPECT_EQ(agent({{"node", "gpu-18"}}), "gpu-18:1778");
  EXPECT_NE(agent({{"alertname", "A"}}).find("no xpuperf_agent, instance"), std::string::npos);
  EXPECT_NE(agent({{"xpuperf_agent", "node:99999"}}).find("label xpuperf_agent"),
            std::string::npos);
}

TEST(AlertTrigger, CapturesOnlyOptedInFiringAlertsAndSaysWhyNot) {
  AlertTrigger trigger(TriggerPolicy{});
  const auto now = Clock::now();
  auto decide = [&](json labels, json annotations = json::object(), std::string status = "firing") {
    return trigger.Decide(Parsed(labels, annotations, status), now);
  };
  EXPECT_EQ(decide({{"alertname", "A"}, {"instance", "n:1"}}).reason,
            "not opted in (no xpuperf_capture label)");
  EXPECT_EQ(decide({{"alertname", "A"}, {"xpuperf_capture", "findings"}}).reason,
            "not opted in (xpuperf_capture=\"findings\")");
  EXPECT_EQ(decide({{"alertname", "A"}, {"xpuperf_capture", "true"}}, {}, "resolved").reason,
            "resolved");
  EXPECT_NE(decide({{"alertname", "A"}, {"xpuperf_capture", "true"}, {"hostname", "n"}},
                   {{kDurationAnnotation, "x"}})
                .reason.find("not a positive integer"),
            std::string::npos);
  auto too_long = decide({{"alertname", "A"}, {"xpuperf_capture", "true"}, {"hostname", "n"}},
                         {{kDurationAnnotation, "3600000"}});
  EXPECT_NE(too_long.reason.find("over the maximum 60000"), std::string::npos);
  auto ok = decide({{"alertname", "A"}, {"xpuperf_capture", "true"}, {"hostname", "n"}},
                   {{kDurationAnnotation, "1500"}});
  EXPECT_EQ(ok.action, TriggerAction::kCapture) << ok.reason;
  EXPECT_EQ(ok.agent, "n:1778");
  EXPECT_EQ(ok.duration_ms, 1500);
  trigger.Finished(ok);
}

TEST(AlertTrigger, CooldownPerAlertAndNodeAndAGlobalCap) {
  TriggerPolicy policy;
  policy.cooldown = std::chrono::seconds(60);
  policy.max_concurrent = 2;
  AlertTrigger trigger(policy);
  auto alert = [](const std::string& name, const std::string& node) {
    return Parsed({{"alertname", name}, {"xpuperf_capture", "true"}, {"hostname", node}});
  };
  const auto t0 = Clock::now();
  auto first = trigger.Decide(alert("Idle", "n1"), t0);
  ASSERT_EQ(first.action, TriggerAction::kCapture);
  // The same alert on the same node again: cooling down, even after its capture finished.
  trigger.Finished(first);
  auto again = trigger.Decide(alert("Idle", "n1"), t0 + std::chrono::seconds(10));
  EXPECT_EQ(again.action, TriggerAction::kSkip);
  EXPECT_NE(again.reason.find("cooldown: Idle@n1:1778 was captured 10 s ago (50 s left)"),
            std::string::npos)
      << again.reason;
  // Another node, another alert: their own cooldowns.
  auto other_node = trigger.Decide(alert("Idle", "n2"), t0 + std::chrono::seconds(10));
  auto other_alert = trigger.Decide(alert("Hot", "n1"), t0 + std::chrono::seconds(10));
  EXPECT_EQ(other_node.action, TriggerAction::kCapture);
  EXPECT_EQ(other_alert.action, TriggerAction::kCapture);
  // Two running: the cap refuses a third.
  auto capped = trigger.Decide(alert("Idle", "n3"), t0 + std::chrono::seconds(10));
  EXPECT_EQ(capped.action, TriggerAction::kSkip);
  EXPECT_EQ(capped.reason, "2 captures running (at most 2 at once)");
  trigger.Finished(other_node);
  trigger.Finished(other_alert);
  EXPECT_EQ(trigger.running(), 0);
  // After the cooldown the first one may capture again.
  auto later = trigger.Decide(alert("Idle", "n1"), t0 + std::chrono::seconds(61));
  EXPECT_EQ(later.action, TriggerAction::kCapture) << later.reason;
}

TEST(AlertTrigger, AllowedHostsLimitWhichAgentsAlertsMayReach) {
  TriggerPolicy policy;
  policy.allowed_hosts = {"node1", "node2:1900"};
  AlertTrigger trigger(policy);
  const auto now = Clock::now();
  auto d = trigger.Decide(Parsed({{"alertname", "A"},
                                  {"xpuperf_capture", "true"},
                                  {"xpuperf_agent", "evil.example:1778"}}),
                          now);
  EXPECT_EQ(d.reason, "agent evil.example:1778 is not in the allowed hosts");
  EXPECT_EQ(trigger
                .Decide(Parsed({{"alertname", "A"},
                                {"xpuperf_capture", "true"},
                                {"instance", "node1:10877"}}),
                        now)
                .action,
            TriggerAction::kCapture);
  EXPECT_EQ(trigger
                .Decide(Parsed({{"alertname", "A"},
                                {"xpuperf_capture", "true"},
                                {"xpuperf_agent", "node2:1900"}}),
                        now)
                .action,
            TriggerAction::kCapture);
}

}  // namespace
}  // namespace xpuperf::capture

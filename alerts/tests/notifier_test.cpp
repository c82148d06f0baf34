// Deliveries: what is sent when, retries with backoff on 5xx and network errors, none on 4xx, the
// bounded queue, and a restart through the state file that neither loses nor repeats anything.
#include "xpuperf/alerts/notifier.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "xpuperf/alerts/state_file.h"

namespace xpuperf::alerts {
namespace {

using nlohmann::json;

Alert MakeAlert(AlertState state, int64_t fired_at_ms, int64_t resolved_at_ms = 0) {
  Alert a;
  a.rule = "Hot";
  a.labels = Labels({{"alertname", "Hot"}, {"device", "gpu0"}, {"severity", "warning"}});
  a.annotations = {{"summary", "hot"}};
  a.state = state;
  a.active_at_ms = 0;
  a.fired_at_ms = fired_at_ms;
  a.resolved_at_ms = resolved_at_ms;
  return a;
}

struct FakeReceiver {
  std::vector<HttpPost> posts;
  std::vector<Result<int>> answers;  // consumed in order; then 200
  HttpPoster Poster() {
    return [this](const HttpPost& post) -> Result<int> {
      posts.push_back(post);
      if (answers.empty()) return 200;
      Result<int> answer = answers.front();
      answers.erase(answers.begin());
      return answer;
    };
  }
};

std::vector<ReceiverConfig> Receivers() {
  return {{"am", ReceiverKind::kAlertmanager, "http://127.0.0.1:9093", "", "", "", ""},
          {"hook", ReceiverKind::kWebhook, "http://127.0.0.1:5001/hook", "", "", "", ""}};
}

TEST(Notifier, AlertmanagerGetsFiringResendsAndTheResolution) {
  FakeReceiver fake;
  NotifierOptions options;
  options.resend_interval_ms = 60000;
  options.evaluation_interval_ms = 15000;
  Notifier notifier({Receivers()[0]}, options, fake.Poster());
  Alert pending = MakeAlert(AlertState::kPending, 0);
  notifier.Update({&pending}, 0);
  EXPECT_EQ(notifier.DeliverDue(0), 0);  // pending alerts are not sent
  Alert firing = MakeAlert(AlertState::kFiring, 120000);
  notifier.Update({&firing}, 120000);
  ASSERT_EQ(notifier.DeliverDue(120000), 1);
  EXPECT_EQ(fake.posts[0].url, "http://127.0.0.1:9093/api/v2/alerts");
  json body = json::parse(fake.posts[0].body);
  EXPECT_EQ(body[0]["labels"]["device"], "gpu0");
  EXPECT_EQ(body[0]["startsAt"], "1970-01-01T00:02:00.000Z");
  EXPECT_EQ(body[0]["endsAt"], "1970-01-01T00:06:00.000Z");  // + 4 x max(60 s, 15 s)
  notifier.Update({&firing}, 150000);  // within the resend interval: nothing new
  EXPECT_EQ(notifier.DeliverDue(150000), 0);
  notifier.Update({&firing}, 180000);
  EXPECT_EQ(notifier.DeliverDue(180000), 1);
  Alert resolved = MakeAlert(AlertState::kInactive, 120000, 200000);
  notifier.Update({&resolved}, 200000);
  ASSERT_EQ(notifier.DeliverDue(200000), 1);
  EXPECT_EQ(json::parse(fake.posts.back().body)[0]["endsAt"], "1970-01-01T00:03:20.000Z");
  notifier.Update({&resolved}, 300000);  // the resolution is sent once
  EXPECT_EQ(notifier.DeliverDue(300000), 0);
}

TEST(Notifier, WebhookPayloadIsVersion4) {
  FakeReceiver fake;
  Notifier notifier({Receivers()[1]}, {}, fake.Poster());
  Alert firing = MakeAlert(AlertState::kFiring, 60000);
  notifier.Update({&firing}, 60000);
  ASSERT_EQ(notifier.DeliverDue(60000), 1);
  json body = json::parse(fake.posts[0].body);
  EXPECT_EQ(body["version"], "4");
  EXPECT_EQ(body["status"], "firing");
  EXPECT_EQ(body["receiver"], "hook");
  EXPECT_EQ(body["groupKey"], "{}:{alertname=\"Hot\"}");
  EXPECT_EQ(body["groupLabels"]["alertname"], "Hot");
  EXPECT_EQ(body["commonLabels"]["severity"], "warning");
  EXPECT_EQ(body["alerts"][0]["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(body["alerts"][0]["fingerprint"].get<std::string>().size(), 16u);
  notifier.Update({&firing}, 120000);  // no change: no message until repeat_interval
  EXPECT_EQ(notifier.DeliverDue(120000), 0);
  Alert resolved = MakeAlert(AlertState::kInactive, 60000, 180000);
  notifier.Update({&resolved}, 180000);
  ASSERT_EQ(notifier.DeliverDue(180000), 1);
  EXPECT_EQ(json::parse(fake.posts.back().body)["status"], "resolved");
}

TEST(Notifier, RetriesServerErrorsWithBackoffButNotClientErrors) {
  FakeReceiver fake;
  fake.answers = {Result<int>(503), Result<int>(MakeError(ErrorCode::kUnavailable, "refused")),
                  Result<int>(200), Result<int>(400)};
  NotifierOptions options;
  options.initial_backoff_ms = 1000;
  Notifier notifier({Receivers()[0]}, options, fake.Poster());
  Alert firing = MakeAlert(AlertState::kFiring, 0);
  notifier.Update({&firing}, 0);
  EXPECT_EQ(notifier.DeliverDue(0), 0);    // 503
  EXPECT_EQ(notifier.DeliverDue(999), 0);  // backing off: not tried
  EXPECT_EQ(fake.posts.size(), 1u);
  EXPECT_EQ(notifier.DeliverDue(1000), 0);  // network error, next in 2 s
  EXPECT_EQ(notifier.DeliverDue(2999), 0);
  EXPECT_EQ(notifier.DeliverDue(3000), 1);
  EXPECT_EQ(fake.posts.size(), 3u);
  notifier.Update({&firing}, 60000);
  EXPECT_EQ(notifier.DeliverDue(60000), 0);  // 400: dropped, not retried
  EXPECT_EQ(notifier.DeliverDue(120000), 0);
  EXPECT_EQ(fake.posts.size(), 4u);
  const ReceiverStats& stats = notifier.receivers()[0].stats;
  EXPECT_EQ(stats.sent, 1u);
  EXPECT_EQ(stats.retried, 2u);
  EXPECT_EQ(stats.failed, 1u);
}

TEST(Notifier, QueueIsBounded) {
  FakeReceiver fake;
  NotifierOptions options;
  options.queue_capacity = 3;
  options.resend_interval_ms = 1;
  for (int i = 0; i < 10; ++i) fake.answers.push_back(Result<int>(500));
  Notifier notifier({Receivers()[0]}, options, fake.Poster());
  Alert firing = MakeAlert(AlertState::kFiring, 0);
  for (int64_t t = 0; t < 10; ++t) notifier.Update({&firing}, t * 10);
  EXPECT_EQ(notifier.receivers()[0].queue.size(), 3u);
  EXPECT_EQ(notifier.receivers()[0].stats.dropped, 7u);
}

TEST(Notifier, RestartThroughTheStateFileNeitherLosesNorRepeats) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("alerts-state-" + std::to_string(getpid())))
          .string();
  FakeReceiver fake;
  fake.answers = {Result<int>(MakeError(ErrorCode::kUnavailable, "down"))};
  Alert firing = MakeAlert(AlertState::kFiring, 0);
  {
    Notifier notifier(Receivers(), {}, fake.Poster());
    notifier.Update({&firing}, 0);
    notifier.DeliverDue(0);  // Alertmanager down: its delivery waits; the webhook got it
    AlertStateSnapshot snapshot{0, {firing}, notifier.receivers()};
    ASSERT_TRUE(WriteAlertStateFile(path, snapshot).ok());
  }
  ASSERT_EQ(fake.posts.size(), 2u);
  auto snapshot = ReadAlertStateFile(path);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
  ASSERT_EQ(snapshot->alerts.size(), 1u);
  EXPECT_EQ(snapshot->alerts[0].labels, firing.labels);
  Notifier restarted(Receivers(), {}, fake.Poster());
  RestoreReceivers(snapshot->receivers, restarted);
  restarted.Update({&firing}, 30000);
  EXPECT_EQ(restarted.DeliverDue(30000), 1);  // only the waiting Alertmanager delivery
  ASSERT_EQ(fake.posts.size(), 3u);
  EXPECT_NE(fake.posts[2].url.find("/api/v2/alerts"), std::string::npos);
  std::filesystem::remove(path);
  EXPECT_FALSE(ReadAlertStateFile(path).ok());
  EXPECT_FALSE(ParseAlertState("{\"schema_version\": 1}").ok());
}

TEST(AlertStateFileTest, IntegersOutOfRangeAreErrorsNamingTheField) {
  for (const char* version : {"2.2e22", "1.5", "-1", "18446744073709551615", "\"1\""}) {
    const std::string text = fmt::format(
        R"({{"schema_version": {}, "written_at_ms": 0, "alerts": [], "receivers": []}})", version);
    Result<AlertStateSnapshot> parsed = ParseAlertState(text);
    ASSERT_FALSE(parsed.ok()) << version;
    EXPECT_NE(parsed.error().message.find("schema_version"), std::string::npos)
        << parsed.error().message;
  }
  Result<AlertStateSnapshot> huge_time = ParseAlertState(
      R"({"schema_version": 1, "written_at_ms": 1e300, "alerts": [], "receivers": []})");
  ASSERT_FALSE(huge_time.ok());
  EXPECT_NE(huge_time.error().message.find("written_at_ms"), std::string::npos);
  EXPECT_TRUE(
      ParseAlertState(R"({"schema_version": 1, "written_at_ms": 5, "alerts": [], "receivers": []})")
          .ok());
}

}  // namespace
}  // namespace xpuperf::alerts

namespace xpuperf::alerts {
namespace {

// A damaged state file: times Alertmanager could not parse are refused; a delivery due at the end
// of time and a queue over the cap are not trusted on restore.
TEST(AlertStateFileTest, ADamagedFileIsNotTrusted) {
  for (const char* time : {"-5", "9223372036854775807", "253402300800000"}) {
    const std::string text = fmt::format(
        R"({{"schema_version": 1, "written_at_ms": {}, "alerts": [], "receivers": []}})", time);
    const auto parsed = ParseAlertState(text);
    ASSERT_FALSE(parsed.ok()) << time;
    EXPECT_NE(parsed.error().message.find("between 1970 and 9999"), std::string::npos)
        << parsed.error().message;
  }
  ReceiverState saved;
  saved.config.name = "am";
  for (int i = 0; i < 5; ++i) {
    Delivery d;
    d.body = "[" + std::to_string(i) + "]";
    d.next_attempt_ms = 253402300799999;  // "retry at the end of time"
    saved.queue.push_back(d);
  }
  FakeReceiver fake;
  NotifierOptions options;
  options.queue_capacity = 3;
  Notifier notifier({Receivers()[0]}, options, fake.Poster());
  RestoreReceivers({saved}, notifier);
  ASSERT_EQ(notifier.receivers()[0].queue.size(), 3u);
  EXPECT_EQ(notifier.receivers()[0].queue.front().body, "[2]") << "the newest are kept";
  EXPECT_EQ(notifier.receivers()[0].stats.dropped, 2u);
  EXPECT_EQ(notifier.DeliverDue(1000), 3) << "restored deliveries are due at once";
}

TEST(ReceiverUrl, BrokenUrlsAreRefusedAtStartNamingTheOption) {
  for (const char* good : {"http://127.0.0.1:9093", "https://am.example:443/prefix",
                           "http://[::1]:9093", "http://am"}) {
    EXPECT_TRUE(ValidateReceiverUrl(good, "--alertmanager").ok()) << good;
  }
  for (const char* bad : {"not a url", "ftp://x", "http://h:99999", "http://h:0", "http://:80",
                          "http://h:", "http://h:9o93", "http://u:p@h", "http://h/a b",
                          "http://::1:9093", "http://[::1", ""}) {
    const Status s = ValidateReceiverUrl(bad, "--alertmanager");
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_TRUE(s.error().message.starts_with("--alertmanager '")) << s.error().message;
  }
}

}  // namespace
}  // namespace xpuperf::alerts

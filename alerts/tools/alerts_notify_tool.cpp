// Usage: alerts_notify_tool --rules FILE --series 'name{l="v"}' --value V --steps N
//          [--interval-ms MS] [--resend-ms MS] [--state FILE] [--alertmanager URL] [--webhook URL]
// Every interval: appends V to the series at the wall-clock time, evaluates the rules, queues and
// delivers notifications, and writes the state file (restored at start, as `serve --rules` does).
// Prints one line per step: "step N: ALERT STATE ..." and the receivers' counters at the end.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "xpuperf/alerts/notifier.h"
#include "xpuperf/alerts/promql.h"
#include "xpuperf/alerts/rule_engine.h"
#include "xpuperf/alerts/state_file.h"

using namespace xpuperf::alerts;

namespace {
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
int Fail(const std::string& message) {
  std::fprintf(stderr, "alerts_notify_tool: %s\n", message.c_str());
  return 1;
}
int Run(int argc, char** argv) {
  std::string rules, series, state, alertmanager, webhook;
  double value = 0;
  int steps = 0;
  int64_t interval_ms = 200, resend_ms = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], arg = argv[i + 1];
    if (flag == "--rules")
      rules = arg;
    else if (flag == "--series")
      series = arg;
    else if (flag == "--value")
      value = std::stod(arg);
    else if (flag == "--steps")
      steps = std::stoi(arg);
    else if (flag == "--interval-ms")
      interval_ms = std::stoll(arg);
    else if (flag == "--resend-ms")
      resend_ms = std::stoll(arg);
    else if (flag == "--state")
      state = arg;
    else if (flag == "--alertmanager")
      alertmanager = arg;
    else if (flag == "--webhook")
      webhook = arg;
    else
      return Fail("unknown flag " + flag);
  }
  auto file = LoadRuleFile(rules);
  if (!file.ok()) return Fail(file.error().message);
  auto selector = ParseExpr(series);
  if (!selector.ok() || (*selector)->kind != NodeKind::kVectorSelector) {
    return Fail("--series must be a series like name{label=\"value\"}");
  }
  std::vector<std::pair<std::string, std::string>> items;
  for (const LabelMatcher& m : (*selector)->matchers) items.emplace_back(m.name, m.value);
  const Labels labels(std::move(items));

  std::vector<RuleFile> files;
  files.push_back(std::move(*file));
  RuleEngine engine(std::move(files));
  std::vector<ReceiverConfig> receivers;
  if (!alertmanager.empty())
    receivers.push_back(
        {"alertmanager", ReceiverKind::kAlertmanager, alertmanager, "", "", "", ""});
  if (!webhook.empty())
    receivers.push_back({"webhook", ReceiverKind::kWebhook, webhook, "", "", "", ""});
  NotifierOptions options;
  options.resend_interval_ms = resend_ms;
  options.evaluation_interval_ms = interval_ms;
  options.initial_backoff_ms = 100;
  options.max_backoff_ms = 400;
  options.max_attempts = 1000;
  options.timeout_seconds = 2;
  Notifier notifier(std::move(receivers), options, DefaultHttpPoster(options.timeout_seconds));
  if (!state.empty()) {
    auto saved = ReadAlertStateFile(state);
    if (saved.ok()) {
      engine.RestoreAlerts(saved->alerts);
      RestoreReceivers(saved->receivers, notifier);
    } else if (saved.error().code != xpuperf::ErrorCode::kNotFound) {
      return Fail(saved.error().message);
    }
  }
  MemorySeriesSource source;
  for (int step = 0; step < steps; ++step) {
    const int64_t now = NowMs();
    source.Append(labels, {now, value});
    for (const RuleEvalError& e : engine.EvaluateAll(source, now)) {
      std::fprintf(stderr, "rule %s: %s\n", e.rule.c_str(), e.message.c_str());
    }
    notifier.Update(engine.Alerts(), now);
    notifier.DeliverDue(now);
    std::printf("step %d:", step);
    for (const Alert* a : engine.Alerts()) {
      std::printf(" %s=%s", a->rule.c_str(), std::string(AlertStateName(a->state)).c_str());
    }
    std::printf("\n");
    if (!state.empty()) {
      AlertStateSnapshot snapshot;
      snapshot.written_at_ms = now;
      for (const Alert* a : engine.Alerts()) snapshot.alerts.push_back(*a);
      snapshot.receivers = notifier.receivers();
      auto written = WriteAlertStateFile(state, snapshot);
      if (!written.ok()) return Fail(written.error().message);
    }
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  for (const ReceiverState& r : notifier.receivers()) {
    std::printf("receiver %s: sent=%llu failed=%llu dropped=%llu retried=%llu queued=%zu\n",
                r.config.name.c_str(), static_cast<unsigned long long>(r.stats.sent),
                static_cast<unsigned long long>(r.stats.failed),
                static_cast<unsigned long long>(r.stats.dropped),
                static_cast<unsigned long long>(r.stats.retried), r.queue.size());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {  // a bad number in a flag (std::stod)
    std::fprintf(stderr, "alerts_notify_tool: %s\n", e.what());
    return 1;
  }
}

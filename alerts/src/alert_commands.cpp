#include "xpuperf/alerts/alert_commands.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "xpuperf/alerts/promtool_test.h"
#include "xpuperf/alerts/rule_file.h"
#include "xpuperf/alerts/state_file.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/output_file.h"

namespace xpuperf::alerts {

int RunAlertCheck(const AlertCheckOptions& options, std::ostream& out, std::ostream& err) {
  int status = kExitOk;
  for (const std::string& path : options.files) {
    auto file = LoadRuleFile(path);
    if (!file.ok()) {
      err << "xpuperf alert check: error: " << file.error().message << "\n";
      status = kExitFailure;
      continue;
    }
    size_t alerting = 0, recording = 0;
    for (const RuleGroup& group : file->groups) {
      for (const Rule& rule : group.rules) (rule.is_alert ? alerting : recording)++;
    }
    out << fmt::format("{}: ok, {} groups, {} alerting and {} recording rules\n", path,
                       file->groups.size(), alerting, recording);
  }
  return status;
}

int RunAlertTest(const AlertTestOptions& options, std::ostream& out, std::ostream& err) {
  // The timeline's path is checked before the tests run (docs/POLICIES.md).
  if (!options.timeline_out.empty()) {
    if (Result<OutputTarget> target = PrepareOutput(options.timeline_out); !target.ok()) {
      err << "xpuperf alert test: error: " << target.error().message << "\n";
      return kExitUsage;
    }
    if (Status status = CheckOutputIsNotAnInput(options.timeline_out, options.files);
        !status.ok()) {
      err << "xpuperf alert test: error: " << status.error().message << "\n";
      return kExitUsage;
    }
  }
  int status = kExitOk;
  for (const std::string& path : options.files) {
    PromtoolTestOptions test_options;
    test_options.emit_timeline = !options.timeline_out.empty();
    auto report = RunPromtoolTestFile(path, test_options);
    if (!report.ok()) {
      err << "xpuperf alert test: error: " << report.error().message << "\n";
      status = kExitFailure;
      continue;
    }
    for (const std::string& failure : report->failures) out << "FAILED: " << failure << "\n";
    // A test file without tests judges nothing: it does not pass (promtool says SUCCESS), it exits
    // 3 as every gate with nothing to judge does (docs/POLICIES.md).
    if (report->tests == 0) {
      out << fmt::format("{}: 0 tests, NOTHING TO TEST\n", path);
      err << "xpuperf alert test: error: nothing to test: " << path << " has no tests\n";
      if (status == kExitOk) status = kExitNothingToJudge;
      continue;
    }
    out << fmt::format("{}: {} tests, {}\n", path, report->tests,
                       report->failures.empty() ? "SUCCESS" : "FAILED");
    if (!report->failures.empty()) status = kExitFailure;
    if (!options.timeline_out.empty()) {
      if (Status written = WriteOutputFile(options.timeline_out, report->timeline_yaml);
          !written.ok()) {
        err << "xpuperf alert test: error: " << written.error().message << "\n";
        return kExitFailure;
      }
    }
  }
  return status;
}

int RunAlertList(const AlertListOptions& options, std::ostream& out, std::ostream& err) {
  auto snapshot = ReadAlertStateFile(options.state_file);
  if (!snapshot.ok()) {
    err << "xpuperf alert list: error: " << snapshot.error().message
        << (snapshot.error().code == ErrorCode::kNotFound
                ? " (written by `xpuperf serve --rules FILE --alert-state FILE`)"
                : "")
        << "\n";
    return kExitFailure;
  }
  if (options.json) {
    out << SerializeAlertState(*snapshot) << "\n";
    return kExitOk;
  }
  out << fmt::format("{:<32} {:<9} {:<25} {}\n", "ALERT", "STATE", "ACTIVE SINCE", "LABELS");
  for (const Alert& a : snapshot->alerts) {
    Labels labels = a.labels;
    labels.Remove("alertname");
    out << fmt::format("{:<32} {:<9} {:<25} {}\n", a.rule, AlertStateName(a.state),
                       Rfc3339(a.active_at_ms), labels.ToString());
  }
  if (snapshot->alerts.empty()) out << "(no pending, firing or recently resolved alerts)\n";
  for (const ReceiverState& r : snapshot->receivers) {
    out << fmt::format("receiver {}: {} sent, {} failed, {} dropped, {} retries, {} queued{}\n",
                       r.config.name, r.stats.sent, r.stats.failed, r.stats.dropped,
                       r.stats.retried, r.queue.size(),
                       r.last_error.empty() ? "" : ", last error: " + r.last_error);
  }
  return kExitOk;
}

}  // namespace xpuperf::alerts

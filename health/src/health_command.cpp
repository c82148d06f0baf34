#include "xpuperf/health/health_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/version.h"
#include "xpuperf/health/evaluate.h"
#include "xpuperf/health/slurm_action.h"
#include "xpuperf/render/table.h"
#include "xpuperf/telemetry/session_factory.h"

namespace xpuperf::health {
namespace {

constexpr const char* kCommand = "xpuperf health";

int Fail(const Error& error, std::ostream& err) {
  err << kCommand << ": error: " << error.message << "\n";
  return ExitCodeFor(error);
}

Result<HealthInput> Observe(const HealthCommandOptions& options) {
  XPUPERF_ASSIGN_OR_RETURN(auto session, telemetry::OpenSession(options.common));
  // Unknown device ids fail here, before the window.
  if (auto first = session->Collect({}, options.devices); !first.ok()) return first.error();
  if (!SleepUnlessCancelled(options.window_seconds))
    return MakeError(ErrorCode::kUnavailable, "interrupted");
  HealthInput input;
  XPUPERF_ASSIGN_OR_RETURN(input.readings, session->Collect({}, options.devices));
  for (const Device& d : session->devices()) {
    if (options.devices.empty() ||
        std::find(options.devices.begin(), options.devices.end(), d.id) != options.devices.end())
      input.devices.push_back(d);
  }
  input.backends = session->backends();
  input.kernel_events = ReadKernelLog(options.common.root);
  return input;
}

// Observe on a thread of its own, waited for up to the deadline. A backend call that never returns
// cannot be cancelled: past the deadline the caller reports and ends the process (ExitNow).
std::optional<Result<HealthInput>> ObserveWithin(const HealthCommandOptions& options) {
  auto task = std::make_shared<std::packaged_task<Result<HealthInput>()>>(
      [options] { return Observe(options); });
  std::future<Result<HealthInput>> answer = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  // The sampling window is the command's own wait: the deadline bounds the backends beyond it.
  const auto deadline =
      std::chrono::duration<double>(options.window_seconds + options.deadline_seconds);
  if (answer.wait_for(deadline) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

std::string NoAnswerMessage(const HealthCommandOptions& options) {
  return fmt::format(
      "no answer from the backends within {:g} s (--deadline): a device call hangs, as a GPU "
      "that stopped answering hangs its driver",
      options.deadline_seconds);
}

// The end of a run whose backend call still hangs on another thread: the streams are flushed and
// the process ends without unwinding (static destructors would race the hung call).
[[noreturn]] void ExitNow(int code, std::ostream& out, std::ostream& err) {
  out.flush();
  err.flush();
  std::_Exit(code);
}

std::string RenderText(const HealthReport& report) {
  int counts[4] = {0, 0, 0, 0};  // by Status
  for (const Verdict& v : report.verdicts) ++counts[static_cast<int>(v.status)];
  std::string out = fmt::format(
      "Health of {}: {} ({} fail, {} warn, {} unknown, {} pass{})\n", report.host,
      report.Healthy() ? "healthy" : "unhealthy", counts[static_cast<int>(Status::kFail)],
      counts[static_cast<int>(Status::kWarn)], counts[static_cast<int>(Status::kUnknown)],
      counts[static_cast<int>(Status::kPass)],
      report.WorstAction() == Action::kNone
          ? ""
          : fmt::format("; the strongest action: {}", ActionName(report.WorstAction())));
  render::Table table;
  for (const char* header : {"DEVICE", "SUBSYSTEM", "STATUS", "CODE", "ACTION", "EVIDENCE"}) {
    render::Column column;
    column.header = header;
    table.columns.push_back(std::move(column));
  }
  table.max_cell_width = 100;
  for (const Verdict& v : report.verdicts) {
    table.rows.push_back(
        {render::Cell::Text(v.device), render::Cell::Text(std::string(SubsystemName(v.subsystem))),
         render::Cell::Text(std::string(StatusName(v.status))), render::Cell::Text(v.code),
         render::Cell::Text(std::string(ActionName(v.action))), render::Cell::Text(v.evidence)});
  }
  out += render::RenderTableText(table);
  // Each warning and failure in full: the table's cells may be cut to fit the terminal.
  std::string findings;
  for (const Verdict& v : report.verdicts) {
    if (v.status != Status::kWarn && v.status != Status::kFail) continue;
    findings += fmt::format("\n  {} {} {} {}: {}\n", StatusName(v.status), v.device,
                            SubsystemName(v.subsystem), v.code, v.summary);
    findings += render::WrapNote("evidence: " + v.evidence + " (from " + v.source + ")");
    findings += render::WrapNote("action: " + std::string(ActionName(v.action)));
  }
  if (!findings.empty()) out += "\nFindings:\n" + findings;
  return out;
}

// node-problem-detector's custom plugin: one line, at most max_output_length (80) bytes.
constexpr size_t kNpdMaxOutput = 80;

std::string NpdLine(std::string line) {
  if (line.size() > kNpdMaxOutput) line = line.substr(0, kNpdMaxOutput - 3) + "...";
  return line + "\n";
}

int RunNpd(const HealthCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto observed = ObserveWithin(options);
  if (!observed) {
    out << NpdLine("xpuperf health: unknown: " + NoAnswerMessage(options));
    ExitNow(2, out, err);
  }
  auto& input = *observed;
  if (!input.ok()) {
    out << NpdLine("xpuperf health: unknown: " + input.error().message);
    return 2;
  }
  HealthOptions rules;
  rules.root = options.common.root;
  rules.expect = options.expect;
  const HealthReport report = EvaluateHealth(*input, rules);
  std::string failed;
  int count = 0;
  for (const Verdict& v : report.verdicts) {
    if (v.status != Status::kFail) continue;
    if (count++ == 0) failed = fmt::format("{} {} ({})", v.device, v.code, ActionName(v.action));
  }
  if (count == 0) {
    out << NpdLine(
        fmt::format("xpuperf health: no verdict fails ({} verdicts)", report.verdicts.size()));
    return 0;
  }
  out << NpdLine(fmt::format("xpuperf health: {}{}", failed,
                             count > 1 ? fmt::format(" and {} more", count - 1) : ""));
  return 1;
}

}  // namespace

int RunHealth(const HealthCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.expect && (*options.expect < 0 || *options.expect > 4096)) {
    return Fail(MakeError(ErrorCode::kInvalidArgument, "--expect must be between 0 and 4096"), err);
  }
  if (!(options.window_seconds >= 0 && options.window_seconds <= 60)) {
    return Fail(MakeError(ErrorCode::kInvalidArgument, "--window must be between 0 and 60 seconds"),
                err);
  }
  if (options.npd && (options.drain || options.resume)) {
    return Fail(MakeError(ErrorCode::kInvalidArgument,
                          "--npd answers node-problem-detector, which acts itself: not with "
                          "--drain or --resume"),
                err);
  }
  if (options.resume && !options.drain) {
    return Fail(MakeError(ErrorCode::kInvalidArgument, "--resume needs --drain"), err);
  }
  if (!(options.deadline_seconds >= 1 && options.deadline_seconds <= 600)) {
    return Fail(
        MakeError(ErrorCode::kInvalidArgument, "--deadline must be between 1 and 600 seconds"),
        err);
  }
  if (options.npd) return RunNpd(options, out, err);
  auto observed = ObserveWithin(options);
  if (!observed) {
    err << kCommand << ": error: " << NoAnswerMessage(options) << "\n";
    ExitNow(kExitFailure, out, err);
  }
  auto& input = *observed;
  if (!input.ok()) return Fail(input.error(), err);
  HealthOptions rules;
  rules.root = options.common.root;
  rules.expect = options.expect;
  HealthReport report = EvaluateHealth(*input, rules);
  report.host = HostName();
  report.timestamp_ns = SystemClock::Instance().WallNs();
  if (options.json) {
    nlohmann::json doc = HealthJson(report);
    doc["json_schema_version"] = kJsonSchemaVersion;
    doc["xpuperf_version"] = kVersion;
    out << doc.dump(2) << "\n";
  } else {
    out << RenderText(report);
  }
  out.flush();
  if (options.drain) {
    SlurmActionOptions slurm;
    slurm.node = options.node;
    slurm.scontrol = options.scontrol;
    slurm.resume = options.resume;
    if (xpuperf::Status acted = ActOnSlurm(report, slurm, err); !acted.ok()) {
      err << kCommand << ": error: " << acted.error().message << "\n";
      return kExitFailure;
    }
  }
  return report.Healthy() ? kExitOk : kExitFailure;
}

}  // namespace xpuperf::health

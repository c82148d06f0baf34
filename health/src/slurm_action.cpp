#include "xpuperf/health/slurm_action.h"

#include <fmt/format.h>

#include <ostream>

#include "xpuperf/core/host_name.h"
#include "xpuperf/core/run_program.h"

namespace xpuperf::health {
namespace {

constexpr std::string_view kReasonPrefix = "xpuperf:";
constexpr size_t kMaxReason = 200;

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

Result<std::string> Scontrol(const SlurmActionOptions& options,
                             const std::vector<std::string>& args) {
  std::vector<std::string> argv = {options.scontrol};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions run;
  run.timeout_seconds = options.timeout_seconds;
  run.max_output = 64 << 10;
  const std::string what = fmt::format("{} {}", options.scontrol, fmt::join(args, " "));
  auto result = RunProgram(argv, run);
  if (!result.ok()) return MakeError(ErrorCode::kUnavailable, what + ": " + result.error().message);
  if (result->exit_code != 0) {
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("{}: exit {}: {}", what, result->exit_code,
                                 FirstLine(result->err.empty() ? result->out : result->err)));
  }
  return result->out;
}

std::string ShortHostName() {
  std::string host = HostName();
  return host.substr(0, host.find('.'));
}

}  // namespace

Result<SlurmNodeState> ParseSlurmNode(const std::string& output) {
  SlurmNodeState node;
  const size_t state = output.find("State=");
  if (state == std::string::npos)
    return MakeError(ErrorCode::kParse, "no State= in scontrol's answer: " + FirstLine(output));
  const size_t state_end = output.find_first_of(" \n", state);
  node.state = output.substr(state + 6, state_end - state - 6);
  const size_t reason = output.find(" Reason=");
  if (reason != std::string::npos) {
    std::string text = output.substr(reason + 8);
    text = text.substr(0, text.find('\n'));
    // Slurm appends who set it and when: "… [root@2026-12-07T01:30:00]".
    if (const size_t who = text.rfind(" ["); who != std::string::npos && text.back() == ']')
      text.resize(who);
    if (text != "(null)") node.reason = text;
  }
  return node;
}

std::string DrainReason(const HealthReport& report) {
  std::string reason;
  for (const Verdict& v : report.verdicts) {
    if (v.status != Status::kFail || v.action < Action::kResetDevice) continue;
    std::string part = fmt::format("{} {} ({})", v.device, v.code, ActionName(v.action));
    reason += (reason.empty() ? std::string(kReasonPrefix) + " " : std::string("; ")) + part;
  }
  if (reason.size() > kMaxReason) reason = reason.substr(0, kMaxReason - 3) + "...";
  return reason;
}

xpuperf::Status ActOnSlurm(const HealthReport& report, const SlurmActionOptions& options,
                           std::ostream& err) {
  const std::string node = options.node.empty() ? ShortHostName() : options.node;
  XPUPERF_ASSIGN_OR_RETURN(std::string shown, Scontrol(options, {"show", "node", node, "-o"}));
  XPUPERF_ASSIGN_OR_RETURN(SlurmNodeState state, ParseSlurmNode(shown));
  const bool ours = state.reason.starts_with(kReasonPrefix);
  const std::string reason = DrainReason(report);
  if (!reason.empty()) {
    if (state.drained()) {
      err << "xpuperf health: node " << node << " is already drained ("
          << (ours ? "by xpuperf" : "reason: " + state.reason) << "); left as it is\n";
      return {};
    }
    auto drained =
        Scontrol(options, {"update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason});
    if (!drained.ok()) return drained.error();
    err << "xpuperf health: drained node " << node << ": " << reason << "\n";
    return {};
  }
  if (options.resume && report.Healthy() && state.drained() && ours) {
    auto resumed = Scontrol(options, {"update", "NodeName=" + node, "State=RESUME"});
    if (!resumed.ok()) return resumed.error();
    err << "xpuperf health: resumed node " << node << " (drained by xpuperf: " << state.reason
        << "; every verdict passes now)\n";
  }
  return {};
}

xpuperf::Status ResumeIfDrainedByXpuperf(const SlurmActionOptions& options, std::ostream& err) {
  const std::string node = options.node.empty() ? ShortHostName() : options.node;
  XPUPERF_ASSIGN_OR_RETURN(std::string shown, Scontrol(options, {"show", "node", node, "-o"}));
  XPUPERF_ASSIGN_OR_RETURN(SlurmNodeState state, ParseSlurmNode(shown));
  if (!state.drained()) {
    err << "node " << node << " is not drained; nothing to resume\n";
    return {};
  }
  if (!state.reason.starts_with(kReasonPrefix)) {
    err << "node " << node << " was drained by someone else (" << state.reason
        << "); left drained\n";
    return {};
  }
  auto resumed = Scontrol(options, {"update", "NodeName=" + node, "State=RESUME"});
  if (!resumed.ok()) return resumed.error();
  err << "resumed node " << node << " (drained by xpuperf: " << state.reason << ")\n";
  return {};
}

}  // namespace xpuperf::health

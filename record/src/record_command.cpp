#include "xpuperf/record/record_command.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <limits>
#include <ostream>

#include "recording.h"
#include "xpuperf/record/job_tree.h"
#include "xpuperf/record/timeline_files.h"
#include "xpuperf/telemetry/session_factory.h"

namespace xpuperf::record {
namespace {

constexpr double kMinRateHz = 0.1;
constexpr double kMaxRateHz = 10000;
constexpr int kExitCannotExecute = 126;  // shell conventions
constexpr int kExitNotFound = 127;
constexpr int kExitSignalBase = 128;

std::string DefaultOutDir() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  return std::string("xpuperf-record-") + stamp;
}

int Usage(std::ostream& err, const std::string& message) {
  err << "xpuperf record: error: " << message << "\n";
  return kExitUsage;
}

}  // namespace

int RunRecord(const RecordCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (!(options.rate_hz >= kMinRateHz && options.rate_hz <= kMaxRateHz)) {
    return Usage(err, "--rate must be between 0.1 and 10000 Hz");
  }
  constexpr double kMaxDurationS = 366.0 * 24 * 3600;
  // An option given explicitly is never taken as "not given": --duration 0 and --pid -1 are
  // errors, not "until interrupted" and "system-wide".
  if (options.duration_s && !(*options.duration_s > 0 && *options.duration_s <= kMaxDurationS)) {
    return Usage(err,
                 "--duration must be more than 0 and at most 31622400 seconds (a year); leave it "
                 "out to record until interrupted");
  }
  if (options.pid && (*options.pid <= 0 || *options.pid > std::numeric_limits<int32_t>::max())) {
    return Usage(err, "--pid must be a positive process id");
  }
  const int pid = options.pid ? static_cast<int>(*options.pid) : 0;
  if (!options.command.empty() && pid > 0) {
    return Usage(err, "give either a command (after --) or --pid, not both");
  }
  if (!options.command.empty() && options.duration_s) {
    return Usage(err,
                 "--duration is for --pid or a system-wide recording; with a command the "
                 "recording lasts as long as the command");
  }
  if (pid > 0 && !ProcessIsRunning(pid)) {
    err << "xpuperf record: error: no running process " << pid << " to attach to\n";
    return kExitFailure;
  }
  // A BMC answers a power query in tens to hundreds of ms and updates its reading about once a
  // second: polled faster it only loads the BMC.
  if (!(options.ipmi_period_s >= 1 && options.ipmi_period_s <= 3600)) {
    return Usage(err, "--ipmi-period must be between 1 and 3600 seconds");
  }
  if (options.progress_s && !(*options.progress_s >= 0 && *options.progress_s <= 86400)) {
    return Usage(err, "--progress must be between 0 (no progress lines) and 86400 seconds");
  }
  const std::string dir = options.out.empty() ? DefaultOutDir() : options.out;
  // The output is checked before the job starts (docs/POLICIES.md): a path the policy refuses is a
  // usage error, found in a second rather than after the job ran.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return Usage(err, "cannot create the output directory '" + dir + "'" +
                          (ec ? ": " + ec.message() : std::string()));
  }
  if (Status writable = CheckRecordingDirectory(dir, options.html); !writable.ok()) {
    return Usage(err, writable.error().message);
  }
  Result<std::unique_ptr<Session>> session = telemetry::OpenSession(options.common);
  if (!session.ok()) {
    err << "xpuperf record: error: " << session.error().message << "\n";
    return ExitCodeFor(session.error());
  }
  std::string backends;
  for (const BackendStatus& b : (*session)->backends()) {
    if (b.available) backends += (backends.empty() ? "" : ", ") + b.name;
  }
  err << "xpuperf record: sampling " << (backends.empty() ? "no backend" : backends) << " at "
      << options.rate_hz << " Hz into " << dir << "/\n";

  RecordOptions record;
  record.rate_hz = options.rate_hz;
  record.out_dir = dir;
  // The job is a real process even when --root points the backends at a recorded tree.
  record.root = "/";
  record.command = options.command;
  record.attach_pid = pid;
  record.duration_s = options.duration_s.value_or(0);
  record.html = options.html;
  record.progress_period_s = options.progress_s.value_or(isatty(STDERR_FILENO) ? 10 : 60);
  // The BMC is this machine's: not read when the backends read a recorded tree (--root).
  if (options.ipmi && options.common.root == "/") {
    BmcPowerOptions bmc;
    bmc.period_s = options.ipmi_period_s;
    record.bmc = bmc;
  } else {
    record.bmc.reset();
  }
  Result<RecordOutcome> outcome = Record(**session, record, err);
  if (!outcome.ok()) {
    err << "xpuperf record: error: " << outcome.error().message << "\n";
    if (outcome.error().code == ErrorCode::kNotFound && !options.command.empty())
      return kExitNotFound;
    if (outcome.error().code == ErrorCode::kUnavailable && !options.command.empty())
      return kExitCannotExecute;
    return kExitFailure;
  }
  err << "\n" << RenderSummaryText(outcome->summary);
  err << "\nFiles: " << dir << "/{timeline.csv, timeline.jsonl, timeline.trace.json, summary.json"
      << (options.html ? ", report.html" : "") << "}\n";
  if (options.json) out << outcome->summary.dump(2) << "\n";
  if (outcome->exit) {
    if (outcome->exit->signaled) return kExitSignalBase + outcome->exit->signal;
    return outcome->exit->code;
  }
  return kExitOk;
}

}  // namespace xpuperf::record

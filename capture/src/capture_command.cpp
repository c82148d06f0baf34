// `xpuperf capture`: gather on-demand traces through the agents, then analyse every rank.
#include "xpuperf/capture/capture_command.h"

#include <charconv>
#include <ostream>

#include "client_security.h"
#include "xpuperf/capture/capture.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::capture {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    if (end > begin) parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

int RunCapture(const CaptureCommandOptions& options, const CaptureAnalysis& analysis,
               std::ostream& out, std::ostream& err) {
  auto usage = [&](const std::string& why) {
    err << "xpuperf capture: error: " << why << "\n";
    return kExitUsage;
  };
  if (!options.on_alert.empty()) return RunCaptureOnAlert(options, analysis, out, err);
  CaptureOptions run;
  if (!options.hosts.empty() && !options.hostfile.empty()) {
    return usage("give --hosts or --hostfile, not both");
  }
  if (!options.hostfile.empty()) {
    auto hosts = ReadHostFile(options.hostfile);
    if (!hosts.ok()) return usage(hosts.error().message);
    run.hosts = std::move(hosts).value();
  } else {
    run.hosts = SplitCommas(options.hosts);
  }
  run.jax_targets = SplitCommas(options.jax);
  for (const auto& pid_text : SplitCommas(options.pids)) {
    int32_t pid = 0;
    auto [end, ec] = std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid);
    if (ec != std::errc() || end != pid_text.data() + pid_text.size() || pid < 0) {
      return usage("--pids: '" + pid_text + "' is not a process id");
    }
    run.pids.push_back(pid);
  }
  if (options.job_id < -1) return usage("--job-id must be >= 0");
  if (options.iteration_roundup < 1) return usage("--iteration-roundup must be >= 1");
  if (!(options.start_in_seconds >= 0 && options.start_in_seconds <= 3600)) {
    return usage("--start-in must be 0..3600 s");
  }
  if (!(options.wait_seconds >= 1 && options.wait_seconds <= 86400)) {
    return usage("--wait must be 1..86400 s");
  }
  if (options.duration_ms < 0 || options.duration_ms > 24ll * 3600 * 1000) {
    return usage("--duration-ms must be 1..86400000");
  }
  if (options.iterations < 0 || options.iterations > (1 << 30)) {
    return usage("--iterations must be 1..1073741824");
  }
  auto max_bytes = ParseByteSize(options.max_file_bytes, "--max-file-bytes");
  if (!max_bytes.ok()) return usage(max_bytes.error().message);
  run.job_id = options.job_id;
  run.duration_ms = options.duration_ms;
  run.iterations = options.iterations;
  run.iteration_roundup = options.iteration_roundup;
  run.start_in_seconds = options.start_in_seconds;
  run.wait_seconds = options.wait_seconds;
  run.process_limit = options.process_limit;
  run.max_file_bytes = *max_bytes;
  run.out_dir = options.out_dir;
  run.capture_id = options.capture_id;
  auto security = ClientSecurityFrom(options);
  if (!security.ok()) return usage(security.error().message);
  run.security = std::move(security).value();
  InstallCancellationHandlers();  // Ctrl-C stops waiting; fetched files stay, partial ones go
  auto report = RunCapture(run, err);
  if (!report.ok()) {
    if (report.error().code == ErrorCode::kInvalidArgument) return usage(report.error().message);
    err << "xpuperf capture: error: " << report.error().message << "\n";
    return kExitFailure;
  }
  if (CancellationRequested()) return CancellationExitCode();
  const size_t ok = report->ok_hosts(), total = report->hosts.size();
  err << "xpuperf capture: " << ok << " of " << total << " hosts gathered, "
      << report->trace_files() << " trace files in " << options.out_dir << " (manifest.json)\n";
  for (const auto& host : report->hosts) {
    if (!host.ok) err << "xpuperf capture: error: " << host.host << ": " << host.error << "\n";
  }
  int analysis_code = kExitOk;
  if (!options.no_analyze && analysis.print && report->trace_files() > 0) {
    analysis_code = analysis.print(options.out_dir, options.json, out, err);
  } else if (!options.no_analyze && !analysis.print) {
    err << "xpuperf capture: note: built without trace analysis; run analyze elsewhere\n";
  }
  if (ok == 0) return kExitFailure;
  if (analysis_code != kExitOk) return analysis_code;
  return ok == total ? kExitOk : kExitPartial;
}

}  // namespace xpuperf::capture

// `xpuperf capture --on-alert LISTEN`: automatic capture. Alertmanager's webhook in, a capture of
// the alert's node through its agent, the trace analysis, a findings alert back to Alertmanager.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "alert_receiver.h"
#include "client_security.h"
#include "xpuperf/capture/capture_command.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/exporter/metrics_server.h"

namespace xpuperf::capture {

int RunCaptureOnAlert(const CaptureCommandOptions& options, const CaptureAnalysis& analysis,
                      std::ostream& out, std::ostream& err) {
  auto usage = [&](const std::string& why) {
    err << "xpuperf capture: error: " << why << "\n";
    return kExitUsage;
  };
  auto listen = exporter::ParseListenAddress(options.on_alert);
  if (!listen.ok()) return usage("--on-alert: " + listen.error().message);
  if (options.iterations != 0)
    return usage("--on-alert captures use --duration-ms, not --iterations");
  if (!options.jax.empty()) return usage("--on-alert does not take --jax");
  if (!(options.cooldown_seconds >= 0 && options.cooldown_seconds <= 7 * 86400)) {
    return usage("--cooldown must be 0..604800 s");
  }
  if (!(options.findings_ttl_seconds >= 60 && options.findings_ttl_seconds <= 7 * 86400)) {
    return usage("--findings-ttl must be 60..604800 s");
  }
  if (!(options.start_in_seconds >= 0 && options.start_in_seconds <= 3600)) {
    return usage("--start-in must be 0..3600 s");
  }
  if (!(options.wait_seconds >= 1 && options.wait_seconds <= 86400)) {
    return usage("--wait must be 1..86400 s");
  }
  if (options.duration_ms < 0 || options.max_duration_ms < 1 ||
      options.max_duration_ms > 3'600'000) {
    return usage("--duration-ms and --max-duration-ms must be 1..3600000");
  }
  auto max_bytes = ParseByteSize(options.max_file_bytes, "--max-file-bytes");
  if (!max_bytes.ok()) return usage(max_bytes.error().message);

  AlertReceiverOptions receiver;
  receiver.listen_host = listen->host;
  receiver.port = listen->port;
  receiver.web_config_path = options.web_config;
  receiver.out_root = options.out_dir;
  receiver.log = &err;
  receiver.policy.agent_port = options.agent_port;
  receiver.policy.default_duration_ms = options.duration_ms > 0 ? options.duration_ms : 2000;
  receiver.policy.max_duration_ms = options.max_duration_ms;
  receiver.policy.cooldown =
      std::chrono::milliseconds(static_cast<int64_t>(options.cooldown_seconds * 1000));
  receiver.policy.max_concurrent = options.max_concurrent;
  if (options.max_captures_per_alert < 1 || options.max_captures_per_alert > 100000) {
    return usage("--max-captures-per-alert must be 1..100000");
  }
  receiver.max_captures_per_alert = options.max_captures_per_alert;
  receiver.findings_ttl =
      std::chrono::milliseconds(static_cast<int64_t>(options.findings_ttl_seconds * 1000));
  std::vector<std::string> allowed = SplitCommas(options.hosts);
  if (!options.hostfile.empty()) {
    auto hosts = ReadHostFile(options.hostfile);
    if (!hosts.ok()) return usage(hosts.error().message);
    allowed.insert(allowed.end(), hosts->begin(), hosts->end());
  }
  for (const std::string& host : allowed) {
    auto endpoint = agent::ParseAgentEndpoint(host);
    if (!endpoint.ok()) return usage(endpoint.error().message);
    // A bare name allows every port of that host; HOST:PORT only that agent.
    const bool bare =
        host.find(':') == std::string::npos || (host.starts_with('[') && host.ends_with(']'));
    receiver.policy.allowed_hosts.insert(bare ? endpoint->host : endpoint->ToString());
  }
  std::string am_user, am_password;
  if (!options.alertmanager_credentials_file.empty()) {
    auto text = ReadInputFile(options.alertmanager_credentials_file, 4096);
    if (!text.ok()) return usage(text.error().message);
    std::string line = *text;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) {
      return usage(options.alertmanager_credentials_file + ": expected one line 'user:password'");
    }
    am_user = line.substr(0, colon);
    am_password = line.substr(colon + 1);
  }
  for (size_t i = 0; i < options.alertmanagers.size(); ++i) {
    if (Status s = alerts::ValidateReceiverUrl(options.alertmanagers[i], "--alertmanager");
        !s.ok()) {
      return usage(s.error().message);
    }
    alerts::ReceiverConfig am;
    am.name = "alertmanager-" + std::to_string(i);
    am.url = options.alertmanagers[i];
    while (am.url.ends_with('/')) am.url.pop_back();
    am.basic_auth_user = am_user;
    am.basic_auth_password = am_password;
    am.ca_file = options.alertmanager_ca_file;
    receiver.alertmanagers.push_back(std::move(am));
  }
  receiver.poster = alerts::DefaultHttpPoster(10);

  CaptureOptions& run = receiver.capture;
  run.job_id = options.job_id;
  for (const auto& pid_text : SplitCommas(options.pids)) {
    char* end = nullptr;
    const long pid = std::strtol(pid_text.c_str(), &end, 10);
    if (end == pid_text.c_str() || *end != '\0' || pid < 0 || pid > INT32_MAX) {
      return usage("--pids: '" + pid_text + "' is not a process id");
    }
    run.pids.push_back(static_cast<int32_t>(pid));
  }
  run.start_in_seconds = options.start_in_seconds;
  run.wait_seconds = options.wait_seconds;
  run.process_limit = options.process_limit;
  run.max_file_bytes = *max_bytes;
  auto security = ClientSecurityFrom(options);
  if (!security.ok()) return usage(security.error().message);
  run.security = std::move(security).value();
  if (!options.no_analyze) {
    receiver.analyse =
        analysis.summarise ? analysis.summarise : [](const std::string&) -> Result<std::string> {
      return MakeError(ErrorCode::kUnsupported, "unsupported: built without trace analysis");
    };
  }
  const bool no_alertmanager = receiver.alertmanagers.empty();
  InstallCancellationHandlers();
  auto started = AlertReceiver::Start(std::move(receiver));
  if (!started.ok()) {
    if (started.error().code == ErrorCode::kInvalidArgument) return usage(started.error().message);
    err << "xpuperf capture: error: " << started.error().message << "\n";
    return kExitFailure;
  }
  err << "xpuperf capture: receiving Alertmanager webhooks on "
      << ((*started)->tls() ? "https" : "http") << "://"
      << (listen->host.find(':') != std::string::npos ? "[" + listen->host + "]" : listen->host)
      << ":" << (*started)->port() << "/webhook; captures in " << options.out_dir << "\n";
  if (no_alertmanager) {
    err << "xpuperf capture: note: no --alertmanager: findings are logged and kept in "
           "/api/v1/decisions only\n";
  }
  err.flush();
  while (SleepUnlessCancelled(0.2)) {
  }
  err << "xpuperf capture: stopping (running captures are cancelled)\n";
  (*started)->Stop();
  err << "xpuperf capture: stopped\n";
  (void)out;
  return kExitOk;
}

}  // namespace xpuperf::capture

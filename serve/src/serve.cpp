#include "xpuperf/serve/serve.h"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <ostream>

#include "serve_alerts.h"
#include "xpuperf/alerts/notifier.h"
#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/exporter/bench_check_series.h"
#include "xpuperf/exporter/exporter.h"
#include "xpuperf/exporter/metrics_server.h"
#include "xpuperf/exporter/pod_attribution.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::serve {

namespace {

std::atomic<bool> g_reload{false};
void OnHangup(int) { g_reload.store(true); }

// NODE_NAME (set from spec.nodeName in the DaemonSet) names the node; the pod's own hostname
// would be the pod name.
std::string NodeName() {
  const char* node = std::getenv("NODE_NAME");
  return node != nullptr && *node != '\0' ? std::string(node) : HostName();
}

}  // namespace

int RunServe(const ServeOptions& options, std::ostream& out, std::ostream& err) {
  auto listen = exporter::ParseListenAddress(options.listen);
  if (!listen.ok()) {
    err << "xpuperf serve: error: " << listen.error().message << "\n";
    return kExitUsage;
  }
  if (!(options.history_seconds >= 0 && options.history_seconds <= 86400)) {
    err << "xpuperf serve: error: --history must be between 0 and 86400 seconds\n";
    return kExitUsage;
  }
  if (!(options.pod_refresh_seconds >= 0.05 && options.pod_refresh_seconds <= 3600)) {
    err << "xpuperf serve: error: --pod-refresh must be between 0.05 and 3600 seconds\n";
    return kExitUsage;
  }
  for (const std::string& url : options.alertmanagers) {
    if (Status s = alerts::ValidateReceiverUrl(url, "--alertmanager"); !s.ok()) {
      err << "xpuperf serve: error: " << s.error().message << "\n";
      return kExitUsage;
    }
  }
  for (const std::string& url : options.webhooks) {
    if (Status s = alerts::ValidateReceiverUrl(url, "--webhook"); !s.ok()) {
      err << "xpuperf serve: error: " << s.error().message << "\n";
      return kExitUsage;
    }
  }
  if (!(options.alert_resend_seconds >= 1 && options.alert_resend_seconds <= 86400)) {
    err << "xpuperf serve: error: --alert-resend must be between 1 and 86400 seconds\n";
    return kExitUsage;
  }
  // The state file is rewritten at every change for as long as the daemon runs: a path the output
  // policy refuses is a usage error now, not an error logged at every evaluation.
  if (!options.alert_state.empty()) {
    if (Result<OutputTarget> state = PrepareOutput(options.alert_state); !state.ok()) {
      err << "xpuperf serve: error: --alert-state: " << state.error().message << "\n";
      return kExitUsage;
    }
  }
  // Pod labels when the kubelet's socket is there; refreshed on its own thread, and it copes with
  // the socket appearing or disappearing later.
  exporter::PodAttributionOptions pods;
  pods.socket_path = options.pod_resources_socket;
  pods.resource_names = options.resource_names;
  pods.refresh_seconds = options.pod_refresh_seconds;
  std::unique_ptr<exporter::PodAttribution> attribution =
      options.pod_resources_socket.empty() ? nullptr : exporter::PodAttribution::Start(pods);

  exporter::ExporterOptions ex;
  ex.registry = &BuiltinBackendRegistry();
  ex.backend.root = options.common.root;
  ex.backend.pids = options.common.pids;
  ex.backends = options.common.backends;
  ex.metrics = options.metrics;
  ex.interval_seconds = options.interval_seconds;
  ex.deadline_seconds = options.deadline_seconds;
  ex.hostname = NodeName();
  ex.history_seconds = options.history_seconds;
  if (attribution) ex.attribution = attribution->AsAttribution();
  auto started = exporter::Exporter::Start(std::move(ex));
  if (!started.ok()) {
    err << "xpuperf serve: error: " << started.error().message << "\n";
    return ExitCodeFor(started.error());
  }
  exporter::Exporter& exp = **started;

  // The last bench check as series (before the rules start, so they see it from the first
  // evaluation). A missing file is not fatal: the check may not have run yet on a new node.
  std::shared_ptr<exporter::BenchCheckFile> bench_check;
  std::string bench_check_error;
  const auto refresh_bench_check = [&] {
    const Status status = bench_check->Refresh();
    const std::string message = status.ok() ? "" : status.error().message;
    if (message != bench_check_error) {
      err << "xpuperf serve: "
          << (message.empty() ? "bench check read from " + bench_check->path()
                              : "warning: " + message + " (xpuperf_bench_check_up 0)")
          << "\n";
      err.flush();
      bench_check_error = message;
    }
  };
  if (!options.bench_check.empty()) {
    bench_check = std::make_shared<exporter::BenchCheckFile>(options.bench_check, NodeName());
    bench_check_error = "-";
    refresh_bench_check();
    exp.AddSeriesProvider("bench_check", [bench_check] { return bench_check->Families(); });
  }

  std::unique_ptr<ServeAlerts> alerting;
  if (!options.rule_files.empty()) {
    ServeAlertOptions alert_options;
    alert_options.rule_files = options.rule_files;
    alert_options.alertmanagers = options.alertmanagers;
    alert_options.webhooks = options.webhooks;
    alert_options.state_file = options.alert_state;
    alert_options.external_url = options.external_url;
    alert_options.resend_seconds = options.alert_resend_seconds;
    auto started_alerts = ServeAlerts::Start(exp, alert_options, err);
    if (!started_alerts.ok()) {
      err << "xpuperf serve: error: " << started_alerts.error().message << "\n";
      return ExitCodeFor(started_alerts.error());
    }
    alerting = std::move(*started_alerts);
    err << "xpuperf serve: evaluating " << alerting->rule_count() << " rules\n";
  } else if (!options.alertmanagers.empty() || !options.webhooks.empty()) {
    err << "xpuperf serve: error: --alertmanager and --webhook need --rules\n";
    return kExitUsage;
  }

  exporter::ServerOptions server_options;
  server_options.listen = *listen;
  server_options.web_config_path = options.web_config;
  server_options.max_connections = options.max_connections;
  server_options.max_open_connections = options.max_open_connections;
  server_options.max_connections_per_client = options.max_connections_per_client;
  const std::string host = NodeName();
  server_options.snapshot_json = [host](const exporter::RawSnapshot& raw) {
    telemetry::MetricsSnapshot snap;
    snap.host = host;
    snap.timestamp_ns = raw.timestamp_ns;
    snap.window_seconds = raw.window_seconds;
    snap.devices = raw.devices;
    snap.backends = raw.backends;
    snap.readings = raw.readings;
    return telemetry::MetricsJson(snap).dump(2) + "\n";
  };
  auto server = exporter::MetricsServer::Start(exp, std::move(server_options));
  if (!server.ok()) {
    err << "xpuperf serve: error: " << server.error().message << "\n";
    return ExitCodeFor(server.error());
  }
  struct sigaction hangup = {};
  hangup.sa_handler = OnHangup;
  sigemptyset(&hangup.sa_mask);
  sigaction(SIGHUP, &hangup, nullptr);

  std::string backends;
  for (const auto& c : exp.Health().collectors)
    backends += (backends.empty() ? "" : ", ") + c.backend;
  err << "xpuperf serve: listening on " << ((*server)->tls() ? "https" : "http") << "://"
      << (listen->host.find(':') != std::string::npos ? "[" + listen->host + "]" : listen->host)
      << ":" << (*server)->port() << " (backends: " << backends << "; every "
      << options.interval_seconds << " s)\n";
  err.flush();
  int ticks = 0;
  while (SleepUnlessCancelled(0.1)) {
    // The check file is re-read (when it changed) every 2 s, off the scrape path.
    if (bench_check && ++ticks % 20 == 0) refresh_bench_check();
    if (g_reload.exchange(false)) {
      if (Status s = (*server)->Reload(); s.ok()) {
        err << "xpuperf serve: web config reloaded\n";
      } else {
        err << "xpuperf serve: error: reload failed, keeping the previous config: "
            << s.error().message << "\n";
      }
      err.flush();
    }
  }
  (*server)->Stop();
  alerting.reset();  // last state file write
  err << "xpuperf serve: stopped\n";
  (void)out;
  return kExitOk;
}

}  // namespace xpuperf::serve

#include "xpuperf/serve/serve.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "serve_alerts.h"
#include "serve_health.h"
#include "xpuperf/alerts/notifier.h"
#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/exporter/bench_check_series.h"
#include "xpuperf/exporter/diag_series.h"
#include "xpuperf/exporter/exporter.h"
#include "xpuperf/exporter/metrics_server.h"
#include "xpuperf/exporter/pod_attribution.h"
#include "xpuperf/exporter/process_pods.h"
#include "xpuperf/exporter/slurm_jobs.h"
#include "xpuperf/exporter/workload_energy.h"
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

Error InvalidOption(const std::string& message) {
  return MakeError(ErrorCode::kInvalidArgument, message);
}

// Every option a running daemon would otherwise trip over later, checked before anything starts.
Status CheckOptions(const ServeOptions& options) {
  if (!(options.history_seconds >= 0 && options.history_seconds <= 86400))
    return InvalidOption("--history must be between 0 and 86400 seconds");
  if (!(options.pod_refresh_seconds >= 0.05 && options.pod_refresh_seconds <= 3600))
    return InvalidOption("--pod-refresh must be between 0.05 and 3600 seconds");
  if (!(options.job_refresh_seconds >= 0.05 && options.job_refresh_seconds <= 3600))
    return InvalidOption("--job-refresh must be between 0.05 and 3600 seconds");
  for (const std::string& name : options.process_env_labels) {
    if (!exporter::IsEnvironmentName(name))
      return InvalidOption("--process-env-label '" + name +
                           "': not a variable name ([A-Za-z_][A-Za-z0-9_]*, at most 64)");
  }
  if (options.process_env_labels.size() > 32)
    return InvalidOption("--process-env-label: at most 32 variables");
  if (!options.pod_labels.empty() && options.kubelet_pods_url.empty())
    return InvalidOption("--pod-label needs --kubelet-pods-url (the pods' labels come from it)");
  if (options.pod_labels.size() > 32) return InvalidOption("--pod-label: at most 32 labels");
  for (const std::string& url : options.alertmanagers)
    if (Status s = alerts::ValidateReceiverUrl(url, "--alertmanager"); !s.ok())
      return InvalidOption(s.error().message);
  for (const std::string& url : options.webhooks)
    if (Status s = alerts::ValidateReceiverUrl(url, "--webhook"); !s.ok())
      return InvalidOption(s.error().message);
  if (!(options.alert_resend_seconds >= 1 && options.alert_resend_seconds <= 86400))
    return InvalidOption("--alert-resend must be between 1 and 86400 seconds");
  // The state file is rewritten at every change for as long as the daemon runs: a path the output
  // policy refuses is a usage error now, not an error logged at every evaluation.
  if (!options.alert_state.empty()) {
    if (Result<OutputTarget> state = PrepareOutput(options.alert_state); !state.ok())
      return InvalidOption("--alert-state: " + state.error().message);
  }
  if (options.health_expect && (*options.health_expect < 0 || *options.health_expect > 4096))
    return InvalidOption("--health-expect must be between 0 and 4096");
  if (options.rule_files.empty() && (!options.alertmanagers.empty() || !options.webhooks.empty()))
    return InvalidOption("--alertmanager and --webhook need --rules");
  return {};
}

// Pod labels when the kubelet's socket is there; refreshed on its own thread, and it copes with
// the socket appearing or disappearing later.
std::unique_ptr<exporter::PodAttribution> StartPodAttribution(const ServeOptions& options) {
  if (options.pod_resources_socket.empty()) return nullptr;
  exporter::PodAttributionOptions pods;
  pods.socket_path = options.pod_resources_socket;
  pods.resource_names = options.resource_names;
  pods.refresh_seconds = options.pod_refresh_seconds;
  return exporter::PodAttribution::Start(pods);
}

// Slurm jobs when asked for: the mapping directory read once before the first collection, then
// on its own thread; each change of its state is said on err, and xpuperf_job_mapping_up says it
// at every scrape.
std::unique_ptr<exporter::SlurmJobs> StartSlurmJobs(const ServeOptions& options,
                                                    std::ostream& err) {
  std::vector<std::string> environment = options.process_env_labels;
  if (options.process_env_defaults) {
    for (const std::string& name : exporter::DefaultEnvironmentLabels()) {
      if (std::find(environment.begin(), environment.end(), name) == environment.end())
        environment.push_back(name);
    }
  }
  const bool slurm = options.slurm_jobs || !options.job_mapping_dir.empty();
  if (!slurm && environment.empty()) return nullptr;
  if (!environment.empty() && ::geteuid() != 0) {
    err << "xpuperf serve: note: not root: the environment of other users' processes cannot be "
           "read, so their series carry no env_* labels\n";
  }
  exporter::SlurmJobsOptions jobs;
  jobs.processes = slurm;
  jobs.environment_labels = std::move(environment);
  jobs.mapping_dir = options.job_mapping_dir;
  jobs.root = options.common.root;
  jobs.refresh_seconds = options.job_refresh_seconds;
  // Each change of the directory's state is said once, as one write of one line (later ones come
  // from the refresh thread).
  jobs.on_mapping_change = [&err, dir = options.job_mapping_dir](const std::string& problem) {
    const std::string line =
        problem.empty() ? "xpuperf serve: job mapping read from " + dir + "\n"
                        : "xpuperf serve: warning: job mapping: " + problem +
                              " (no jobs from it until it is fixed; xpuperf_job_mapping_up 0)\n";
    err << line << std::flush;
  };
  return exporter::SlurmJobs::Start(jobs);
}

// Processes to pods when the kubelet's pod list is given: fetched once before the first
// collection (a problem said on err), then on its own thread.
std::unique_ptr<exporter::ProcessPods> StartProcessPods(const ServeOptions& options,
                                                        std::ostream& err) {
  if (options.kubelet_pods_url.empty()) return nullptr;
  exporter::ProcessPodsOptions pods;
  pods.pods_url = options.kubelet_pods_url;
  std::error_code ec;
  if (std::filesystem::exists(options.kubelet_token_file, ec)) {
    pods.token_file = options.kubelet_token_file;
  }
  pods.ca_file = options.kubelet_ca_file;
  pods.insecure = options.kubelet_insecure_tls;
  pods.root = options.common.root;
  pods.refresh_seconds = options.pod_refresh_seconds;
  pods.pod_labels = options.pod_labels;
  auto started = exporter::ProcessPods::Start(pods);
  if (const std::string error = started->state().error; !error.empty()) {
    err << "xpuperf serve: warning: kubelet pods: " << error
        << " (processes get no pod labels until it answers)\n";
  }
  return started;
}

exporter::ExporterOptions ExporterOptionsFor(const ServeOptions& options,
                                             exporter::PodAttribution* attribution,
                                             exporter::SlurmJobs* jobs,
                                             exporter::ProcessPods* process_pods) {
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
  if (attribution != nullptr) ex.attribution = attribution->AsAttribution();
  if (jobs != nullptr) ex.jobs = jobs->AsAttribution();
  if (process_pods != nullptr) {
    ex.jobs.process_pod = [process_pods](int pid) { return process_pods->ForProcess(pid); };
    ex.jobs.pod_labels = [process_pods](const std::string& namespace_name, const std::string& pod) {
      return process_pods->LabelsOfPod(namespace_name, pod);
    };
  }
  return ex;
}

// A file exported as series (the last `bench check --export`, the last `diag`'s diag.json). A
// missing file is not fatal: the check may not have run yet on a new node; each change of its
// state is said once on err.
class SeriesFileWatch {
 public:
  SeriesFileWatch(exporter::Exporter& exp, std::shared_ptr<exporter::SeriesFile> file,
                  std::string what, std::string up_name, std::ostream& err)
      : file_(std::move(file)), what_(std::move(what)), up_name_(std::move(up_name)), err_(err) {
    Refresh();
    exp.AddSeriesProvider(what_, [file = file_] { return file->Families(); });
  }
  void Refresh() {
    const Status status = file_->Refresh();
    const std::string message = status.ok() ? "" : status.error().message;
    if (message == last_error_) return;
    err_ << "xpuperf serve: "
         << (message.empty() ? what_ + " read from " + file_->path()
                             : "warning: " + message + " (" + up_name_ + " 0)")
         << "\n";
    err_.flush();
    last_error_ = message;
  }

 private:
  std::shared_ptr<exporter::SeriesFile> file_;
  std::string what_, up_name_;
  std::ostream& err_;
  std::string last_error_ = "-";  // neither "read" nor any error said yet
};

Result<std::unique_ptr<ServeAlerts>> StartAlerts(exporter::Exporter& exp,
                                                 const ServeOptions& options, std::ostream& err) {
  ServeAlertOptions alert_options;
  alert_options.rule_files = options.rule_files;
  alert_options.alertmanagers = options.alertmanagers;
  alert_options.webhooks = options.webhooks;
  alert_options.state_file = options.alert_state;
  alert_options.external_url = options.external_url;
  alert_options.resend_seconds = options.alert_resend_seconds;
  auto alerting = ServeAlerts::Start(exp, alert_options, err);
  if (alerting.ok()) err << "xpuperf serve: evaluating " << (*alerting)->rule_count() << " rules\n";
  return alerting;
}

exporter::ServerOptions ServerOptionsFor(const ServeOptions& options,
                                         const exporter::ListenAddress& listen) {
  exporter::ServerOptions server_options;
  server_options.listen = listen;
  server_options.web_config_path = options.web_config;
  server_options.max_connections = options.max_connections;
  server_options.max_open_connections = options.max_open_connections;
  server_options.max_connections_per_client = options.max_connections_per_client;
  server_options.snapshot_json = [host = NodeName()](const exporter::RawSnapshot& raw) {
    telemetry::MetricsSnapshot snap;
    snap.host = host;
    snap.timestamp_ns = raw.timestamp_ns;
    snap.window_seconds = raw.window_seconds;
    snap.devices = raw.devices;
    snap.backends = raw.backends;
    snap.readings = raw.readings;
    return telemetry::MetricsJson(snap).dump(2) + "\n";
  };
  return server_options;
}

void SayListening(const exporter::Exporter& exp, const exporter::MetricsServer& server,
                  const exporter::ListenAddress& listen, double interval_seconds,
                  std::ostream& err) {
  std::string backends;
  for (const auto& c : exp.Health().collectors)
    backends += (backends.empty() ? "" : ", ") + c.backend;
  const bool ipv6 = listen.host.find(':') != std::string::npos;
  err << "xpuperf serve: listening on " << (server.tls() ? "https" : "http") << "://"
      << (ipv6 ? "[" + listen.host + "]" : listen.host) << ":" << server.port()
      << " (backends: " << backends << "; every " << interval_seconds << " s)\n";
  err.flush();
}

// Until SIGINT/SIGTERM, off the scrape path: the series files re-read (when changed) every 2 s,
// the health verdicts every collection interval, the web config reloaded on SIGHUP.
void ServeUntilStopped(exporter::MetricsServer& server,
                       const std::vector<std::unique_ptr<SeriesFileWatch>>& files,
                       ServeHealth* health, double interval_seconds, std::ostream& err) {
  const int health_ticks = std::max(1, static_cast<int>(std::lround(interval_seconds * 10)));
  struct sigaction hangup = {};
  hangup.sa_handler = OnHangup;
  sigemptyset(&hangup.sa_mask);
  sigaction(SIGHUP, &hangup, nullptr);
  int ticks = 0;
  while (SleepUnlessCancelled(0.1)) {
    ++ticks;
    if (ticks % 20 == 0)
      for (const auto& file : files) file->Refresh();
    if (health != nullptr && ticks % health_ticks == 0) health->Refresh();
    if (g_reload.exchange(false)) {
      if (Status s = server.Reload(); s.ok()) {
        err << "xpuperf serve: web config reloaded\n";
      } else {
        err << "xpuperf serve: error: reload failed, keeping the previous config: "
            << s.error().message << "\n";
      }
      err.flush();
    }
  }
}

// Errors of the options are usage errors (2); the others by their code (core/exit_code.h).
int Fail(const Error& error, std::ostream& err) {
  err << "xpuperf serve: error: " << error.message << "\n";
  return ExitCodeFor(error);
}

}  // namespace

int RunServe(const ServeOptions& options, std::ostream& out, std::ostream& err) {
  auto listen = exporter::ParseListenAddress(options.listen);
  if (!listen.ok()) return Fail(InvalidOption(listen.error().message), err);
  if (Status checked = CheckOptions(options); !checked.ok()) return Fail(checked.error(), err);

  std::unique_ptr<exporter::PodAttribution> attribution = StartPodAttribution(options);
  std::unique_ptr<exporter::SlurmJobs> jobs = StartSlurmJobs(options, err);
  std::unique_ptr<exporter::ProcessPods> process_pods = StartProcessPods(options, err);
  auto started = exporter::Exporter::Start(
      ExporterOptionsFor(options, attribution.get(), jobs.get(), process_pods.get()));
  if (!started.ok()) return Fail(started.error(), err);
  exporter::Exporter& exp = **started;
  if (jobs != nullptr && !options.job_mapping_dir.empty()) {
    exp.AddSeriesProvider("job mapping", [&jobs = *jobs, host = NodeName()] {
      exporter::MetricFamily up{"xpuperf_job_mapping_up",
                                "1 when the job mapping directory was read at its latest refresh, "
                                "0 when it is missing or refused (the reason on serve's stderr)",
                                exporter::FamilyType::kGauge,
                                {},
                                {}};
      Labels labels;
      if (!host.empty()) labels.Set("hostname", host);
      up.points.push_back(
          exporter::ScalarPoint{labels, jobs.state().mapping_error.empty() ? 1.0 : 0.0});
      return std::vector<exporter::MetricFamily>{std::move(up)};
    });
  }

  // Energy per job and per pod, from the snapshots' device energy and attribution.
  auto workload_energy = std::make_shared<exporter::WorkloadEnergy>();
  exp.AddSnapshotListener([workload_energy](const std::shared_ptr<const exporter::Snapshot>& s) {
    workload_energy->Observe(*s);
  });
  exp.AddSeriesProvider("workload energy",
                        [workload_energy] { return workload_energy->Families(); });

  // The files' series before the rules start, so they see them from the first evaluation.
  std::vector<std::unique_ptr<SeriesFileWatch>> files;
  if (!options.bench_check.empty()) {
    files.push_back(std::make_unique<SeriesFileWatch>(
        exp, std::make_shared<exporter::BenchCheckFile>(options.bench_check, NodeName()),
        "bench check", "xpuperf_bench_check_up", err));
  }
  if (!options.diag_results.empty()) {
    files.push_back(std::make_unique<SeriesFileWatch>(
        exp, std::make_shared<exporter::DiagResultsFile>(options.diag_results, NodeName()),
        "diag results", "xpuperf_diag_up", err));
  }
  std::shared_ptr<ServeHealth> health;
  if (options.health)
    health = ServeHealth::Start(exp, options.common.root, options.health_expect, NodeName());
  std::unique_ptr<ServeAlerts> alerting;
  if (!options.rule_files.empty()) {
    auto started_alerts = StartAlerts(exp, options, err);
    if (!started_alerts.ok()) return Fail(started_alerts.error(), err);
    alerting = std::move(*started_alerts);
  }

  auto server = exporter::MetricsServer::Start(exp, ServerOptionsFor(options, *listen));
  if (!server.ok()) return Fail(server.error(), err);
  SayListening(exp, **server, *listen, options.interval_seconds, err);
  ServeUntilStopped(**server, files, health.get(), options.interval_seconds, err);
  (*server)->Stop();
  alerting.reset();  // last state file write
  err << "xpuperf serve: stopped\n";
  (void)out;
  return kExitOk;
}

}  // namespace xpuperf::serve

// `xpuperf serve`: the Prometheus/OpenMetrics exporter (exporter/) wired to the built-in backends,
// with the built-in rule engine (`--rules`, alerts/), bench-check series and health verdicts
// (health/): the one place they meet. cli/app/serve_command.cpp binds the command line into
// ServeOptions.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/telemetry/commands.h"

namespace xpuperf::serve {

struct ServeOptions {
  telemetry::CommonOptions common;
  std::string listen = "127.0.0.1:10877";  // loopback unless told otherwise
  double interval_seconds = 1;
  double deadline_seconds = 0;  // 0 = max(2 x interval, 2 s)
  std::string web_config;       // exporter-toolkit web config (TLS, basic auth)
  std::vector<std::string> metrics;
  int max_connections = 64;  // requests answered at once
  int max_open_connections = 1024;
  int max_connections_per_client = 256;
  double history_seconds = 300;  // in-memory history for rules (serve --rules)
  // Kubernetes: the kubelet's pod-resources socket (used when it exists) and extra resource names
  // whose device ids are GPU or TPU ids.
  std::string pod_resources_socket = "/var/lib/kubelet/pod-resources/kubelet.sock";
  std::vector<std::string> resource_names;
  double pod_refresh_seconds = 10;
  // Slurm jobs (exporter/slurm_jobs.h): of the processes using devices (--slurm-jobs), and from a
  // prolog/epilog mapping directory (--job-mapping-dir, which implies --slurm-jobs).
  bool slurm_jobs = false;
  std::string job_mapping_dir;
  double job_refresh_seconds = 5;
  // Workload identity from the environment of processes using devices (--process-env-labels: the
  // default names; --process-env-label VAR: more).
  bool process_env_defaults = false;
  // The pod of each process on a shared device, from its cgroup and the kubelet's pod list
  // (process_pods.h): --kubelet-pods-url URL enables it.
  std::string kubelet_pods_url;
  std::string kubelet_token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string kubelet_ca_file;
  bool kubelet_insecure_tls = false;
  std::vector<std::string> pod_labels;  // --pod-label KEY: pod labels on xpuperf_device_pod_info
  std::vector<std::string> process_env_labels;
  // Built-in alerting (`--rules`): rule files, receivers and the state file.
  std::vector<std::string> rule_files;
  std::vector<std::string> alertmanagers;
  std::vector<std::string> webhooks;
  std::string alert_state;
  std::string external_url;
  double alert_resend_seconds = 60;
  // `bench check --export` file exported as xpuperf_bench_check_* series (re-read when it changes).
  std::string bench_check;
  // The last `xpuperf diag`'s diag.json as xpuperf_diag_* series (re-read when it changes).
  std::string diag_results;
  // The verdicts of `xpuperf health` as xpuperf_health and xpuperf_node_healthy series, refreshed
  // every interval (`--no-health` turns them off); `--health-expect N` as `health --expect`.
  bool health = true;
  std::optional<int> health_expect;
};

// Runs until SIGINT/SIGTERM; SIGHUP re-reads the web config. Progress and errors on err.
int RunServe(const ServeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::serve

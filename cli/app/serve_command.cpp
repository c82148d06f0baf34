// `serve`: the Prometheus/OpenMetrics exporter.
#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "xpuperf/serve/serve.h"

namespace xpuperf::cli {

void AddServeCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<serve::ServeOptions>();
  serve::ServeOptions& config = *options;
  CLI::App* command = app.add_subcommand(
      "serve",
      "Prometheus/OpenMetrics exporter: /metrics, /health, /api/v1/snapshot (loopback unless "
      "--listen :PORT)");
  command->add_option("--listen", config.listen, "HOST:PORT, [IPV6]:PORT or :PORT (all interfaces)")
      ->capture_default_str();
  command->add_option("--interval", config.interval_seconds, "Collection period per backend, s")
      ->capture_default_str();
  command->add_option("--deadline", config.deadline_seconds,
                      "A backend collecting longer than this is reported down, s (default "
                      "max(2 x interval, 2))");
  command->add_option("--web-config", config.web_config,
                      "exporter-toolkit web config: TLS and basic auth (SIGHUP re-reads it)");
  command->add_option("--metric,-m", config.metrics,
                      "Export only this catalog metric (repeatable)");
  command
      ->add_option("--history", config.history_seconds,
                   "Seconds of snapshots kept in memory for rules (one per interval)")
      ->capture_default_str();
  command->add_option("--max-connections", config.max_connections, "Requests answered at once")
      ->capture_default_str();
  command
      ->add_option("--max-open-connections", config.max_open_connections,
                   "Open connections in all; at the cap the longest-waiting idle one is closed")
      ->capture_default_str();
  command
      ->add_option("--max-connections-per-client", config.max_connections_per_client,
                   "Open connections per client address; more are closed at once")
      ->capture_default_str();
  command
      ->add_option("--pod-resources-socket", config.pod_resources_socket,
                   "kubelet pod-resources socket (pod labels when it exists)")
      ->capture_default_str();
  command->add_option("--resource-name", config.resource_names,
                      "Extra Kubernetes resource name to attribute (repeatable; nvidia.com/gpu, "
                      "nvidia.com/mig-*, google.com/tpu are always)");
  command->add_option("--pod-refresh", config.pod_refresh_seconds, "Pod mapping refresh period, s")
      ->capture_default_str();
  command->add_flag("--slurm-jobs", config.slurm_jobs,
                    "Slurm job of each process using a device (its cgroup, else its environment): "
                    "xpuperf_job_info and a job_id label on the per-process series");
  command->add_option("--job-mapping-dir", config.job_mapping_dir,
                      "Slurm prolog/epilog job mapping directory (dcgm-exporter's "
                      "--hpc-job-mapping-dir layout; deploy/slurm/); implies --slurm-jobs");
  command->add_option("--job-refresh", config.job_refresh_seconds, "Job mapping refresh period, s")
      ->capture_default_str();
  command->add_flag("--process-env-labels", config.process_env_defaults,
                    "Workload identity on per-process series from each process's environment: "
                    "RANK, LOCAL_RANK, WORLD_SIZE, SLURM_JOB_ID, JOB_ID, TORCHELASTIC_RUN_ID as "
                    "env_rank, ... (reading other users' processes needs root)");
  command->add_option("--kubelet-pods-url", config.kubelet_pods_url,
                      "The kubelet's pod list (https://NODE_IP:10250/pods): the pod of each "
                      "process on a device several pods share, from its cgroup");
  command
      ->add_option("--kubelet-token-file", config.kubelet_token_file,
                   "Bearer token for --kubelet-pods-url (the service account's; skipped when "
                   "missing)")
      ->capture_default_str();
  command->add_option("--kubelet-ca-file", config.kubelet_ca_file,
                      "CA that signed the kubelet's serving certificate");
  command->add_flag("--kubelet-insecure-tls", config.kubelet_insecure_tls,
                    "Do not verify the kubelet's certificate (a self-signed one)");
  command->add_option("--pod-label", config.pod_labels,
                      "A pod label (metadata.labels key) to put on xpuperf_device_pod_info as "
                      "label_<key> (repeatable; needs --kubelet-pods-url)");
  command->add_option("--process-env-label", config.process_env_labels,
                      "Another environment variable to label per-process series with "
                      "(repeatable; env_<name>)");
  command->add_option("--rules", config.rule_files,
                      "Evaluate this Prometheus rule file over the exporter's own history "
                      "(repeatable; `xpuperf alert check` validates it)");
  command->add_option("--alertmanager", config.alertmanagers,
                      "Send alerts to this Alertmanager (base URL, v2 API; repeatable)");
  command->add_option("--webhook", config.webhooks,
                      "Send alerts to this URL in Alertmanager's webhook format (repeatable)");
  command->add_option("--alert-state", config.alert_state,
                      "Alert state file (pending/firing alerts and queued notifications survive "
                      "a restart; read by `xpuperf alert list --state`)");
  command->add_option("--external-url", config.external_url,
                      "URL sent as the alerts' generatorURL / externalURL");
  command
      ->add_option("--alert-resend", config.alert_resend_seconds,
                   "Re-send firing alerts to Alertmanager this often, s")
      ->capture_default_str();
  command->add_option("--bench-check", config.bench_check,
                      "Export this `bench check --export` file as xpuperf_bench_check_* series "
                      "(re-read when it changes)");
  command->add_option("--diag-results", config.diag_results,
                      "Export this `xpuperf diag` diag.json as xpuperf_diag_* series (re-read when "
                      "it changes)");
  command->add_flag("--no-health{false}", config.health,
                    "Do not export the health verdicts (xpuperf_health, xpuperf_node_healthy)");
  command->add_option("--health-expect", config.health_expect,
                      "Accelerators this node must have for the health series (0..4096)");
  AddCommonOptions(command, config.common);
  actions.push_back(
      {command, [options] { return serve::RunServe(*options, std::cout, std::cerr); }, true});
}

}  // namespace xpuperf::cli

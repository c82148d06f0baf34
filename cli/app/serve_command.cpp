// `serve`: the Prometheus/OpenMetrics exporter.
#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "src/command_serve.h"

namespace xpuperf::cli {

void AddServeCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<ServeOptions>();
  ServeOptions& serve = *options;
  CLI::App* command = app.add_subcommand(
      "serve",
      "Prometheus/OpenMetrics exporter: /metrics, /health, /api/v1/snapshot (loopback unless "
      "--listen :PORT)");
  command->add_option("--listen", serve.listen, "HOST:PORT, [IPV6]:PORT or :PORT (all interfaces)")
      ->capture_default_str();
  command->add_option("--interval", serve.interval_seconds, "Collection period per backend, s")
      ->capture_default_str();
  command->add_option("--deadline", serve.deadline_seconds,
                      "A backend collecting longer than this is reported down, s (default "
                      "max(2 x interval, 2))");
  command->add_option("--web-config", serve.web_config,
                      "exporter-toolkit web config: TLS and basic auth (SIGHUP re-reads it)");
  command->add_option("--metric,-m", serve.metrics, "Export only this catalog metric (repeatable)");
  command
      ->add_option("--history", serve.history_seconds,
                   "Seconds of snapshots kept in memory for rules (one per interval)")
      ->capture_default_str();
  command->add_option("--max-connections", serve.max_connections, "Requests answered at once")
      ->capture_default_str();
  command
      ->add_option("--max-open-connections", serve.max_open_connections,
                   "Open connections in all; at the cap the longest-waiting idle one is closed")
      ->capture_default_str();
  command
      ->add_option("--max-connections-per-client", serve.max_connections_per_client,
                   "Open connections per client address; more are closed at once")
      ->capture_default_str();
  command
      ->add_option("--pod-resources-socket", serve.pod_resources_socket,
                   "kubelet pod-resources socket (pod labels when it exists)")
      ->capture_default_str();
  command->add_option("--resource-name", serve.resource_names,
                      "Extra Kubernetes resource name to attribute (repeatable; nvidia.com/gpu, "
                      "nvidia.com/mig-*, google.com/tpu are always)");
  command->add_option("--pod-refresh", serve.pod_refresh_seconds, "Pod mapping refresh period, s")
      ->capture_default_str();
  command->add_option("--rules", serve.rule_files,
                      "Evaluate this Prometheus rule file over the exporter's own history "
                      "(repeatable; `xpuperf alert check` validates it)");
  command->add_option("--alertmanager", serve.alertmanagers,
                      "Send alerts to this Alertmanager (base URL, v2 API; repeatable)");
  command->add_option("--webhook", serve.webhooks,
                      "Send alerts to this URL in Alertmanager's webhook format (repeatable)");
  command->add_option("--alert-state", serve.alert_state,
                      "Alert state file (pending/firing alerts and queued notifications survive "
                      "a restart; read by `xpuperf alert list --state`)");
  command->add_option("--external-url", serve.external_url,
                      "URL sent as the alerts' generatorURL / externalURL");
  command
      ->add_option("--alert-resend", serve.alert_resend_seconds,
                   "Re-send firing alerts to Alertmanager this often, s")
      ->capture_default_str();
  command->add_option("--bench-check", serve.bench_check,
                      "Export this `bench check --export` file as xpuperf_bench_check_* series "
                      "(re-read when it changes)");
  AddCommonOptions(command, serve.common);
  actions.push_back(
      {command, [options] { return RunServe(*options, std::cout, std::cerr); }, true});
}

}  // namespace xpuperf::cli

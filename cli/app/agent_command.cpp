// `agent` and `capture`: on-demand trace capture across nodes.
#include "xpuperf/agent/agent_command.h"

#include <iostream>
#include <memory>

#include "command_wiring.h"
#include "xpuperf/capture/capture_command.h"
#include "xpuperf/core/cancellation.h"
#if XPUPERF_WITH_TRACES
#include "xpuperf/analyze/analyze.h"
#endif

namespace xpuperf::cli {

namespace {

// What `capture` does with the traces it gathered: analyze's report and findings summary, where
// this build analyses traces.
capture::CaptureAnalysis TraceAnalysis() {
  capture::CaptureAnalysis analysis;
#if XPUPERF_WITH_TRACES
  analysis.print = [](const std::string& dir, bool json, std::ostream& out, std::ostream& err) {
    analyze::AnalyzeOptions options;
    options.path = dir;
    options.json = json;
    return analyze::RunAnalyze(options, out, err);
  };
  analysis.summarise = analyze::SummariseCapture;
#endif
  return analysis;
}

}  // namespace

void AddAgentCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<agent::AgentCommandOptions>();
  agent::AgentCommandOptions& config = *options;
  CLI::App* command = app.add_subcommand(
      "agent",
      "Node agent for on-demand traces: dynolog's RPC (port 1778) and Kineto's IPC, so "
      "KINETO_USE_DAEMON=1 processes can be traced without a restart (loopback unless --listen)");
  command->add_option("--listen", config.listen, "HOST:PORT, [IPV6]:PORT or :PORT (all interfaces)")
      ->capture_default_str();
  command->add_option("--web-config", config.web_config,
                      "TLS and basic-auth users (the `serve` web config); needed off loopback");
  command
      ->add_option("--capture-dir", config.capture_dir,
                   "Where traces are written and served from (Kineto accepts paths under /tmp "
                   "or KINETO_ONDEMAND_TRACE_DIR)")
      ->capture_default_str();
  command->add_option("--max-file-bytes", config.max_file_bytes, "Largest trace file served")
      ->capture_default_str();
  command->add_flag("--no-ipc", config.no_ipc, "Do not bind Kineto's IPC endpoint 'dynolog'");
  command
      ->add_option("--process-timeout", config.process_timeout_seconds,
                   "Drop a process silent this long, s")
      ->capture_default_str();
  command->add_option("--workers", config.workers, "Connections served at once")
      ->capture_default_str();
  // A daemon: SIGINT/SIGTERM is its normal stop (exit 0).
  actions.push_back({command, [options] { return agent::RunAgent(*options, std::cout, std::cerr); },
                     /*signal_is_normal_stop=*/true});
}

void AddCaptureCommand(CLI::App& app, CommandActions& actions) {
  auto options = std::make_shared<capture::CaptureCommandOptions>();
  capture::CaptureCommandOptions& c = *options;
  CLI::App* command = app.add_subcommand(
      "capture",
      "Trace a job on every node at once through the agents, bring the files back to DIR and "
      "analyse every rank (exit 3: some hosts failed)");
  command->add_option("--hosts", c.hosts, "Agents: HOST[:PORT],... (port 1778 by default)");
  command->add_option("--hostfile", c.hostfile, "Agents, one HOST[:PORT] per line");
  command->add_option("--jax", c.jax,
                      "JAX processes serving jax.profiler.start_server: HOST:PORT,... (XLA's "
                      "ProfilerService, same start time; .xplane.pb)");
  command->add_option("--job-id", c.job_id, "Only processes of this job (SLURM_JOB_ID)");
  command->add_option("--pids", c.pids, "Only these processes (or their children): PID,...");
  command->add_option("--duration-ms", c.duration_ms, "Trace this long from the common start");
  command->add_option("--iterations", c.iterations, "Or trace this many iterations");
  command
      ->add_option("--iteration-roundup", c.iteration_roundup,
                   "Iteration mode: start on a multiple of this")
      ->capture_default_str();
  command
      ->add_option("--start-in", c.start_in_seconds,
                   "Common start = now + this, s (processes poll every few seconds)")
      ->capture_default_str();
  command->add_option("--wait", c.wait_seconds, "After the window, wait this long for files, s")
      ->capture_default_str();
  command->add_option("--out", c.out_dir, "Output directory: DIR/<host>/..., manifest.json")
      ->required();
  command->add_option("--capture-id", c.capture_id, "Name of the capture (default generated)");
  command->add_option("--process-limit", c.process_limit, "Processes traced per host")
      ->capture_default_str();
  command->add_option("--max-file-bytes", c.max_file_bytes, "Larger trace files are not fetched")
      ->capture_default_str();
  command->add_flag("--tls", c.tls, "Connect to the agents over TLS");
  command->add_option("--ca-file", c.ca_file,
                      "CA that signed the agents' certificates (implies --tls)");
  command->add_option("--cert-file", c.cert_file, "Client certificate");
  command->add_option("--key-file", c.key_file, "Client key");
  command->add_option("--credentials-file", c.credentials_file,
                      "File holding 'user:password' for agents with basic_auth_users");
  command->add_flag("--no-analyze", c.no_analyze, "Only gather the files");
  command->add_flag("--json", c.json, "The analysis as JSON");
  command->add_option("--on-alert", c.on_alert,
                      "Automatic capture: receive Alertmanager webhooks on HOST:PORT, capture the "
                      "node of each firing alert labelled xpuperf_capture=\"true\", post the "
                      "findings back (docs/CAPTURE.md)");
  command->add_option(
      "--alertmanager", c.alertmanagers,
      "--on-alert: post findings alerts to this Alertmanager (base URL; repeatable)");
  command->add_option("--alertmanager-ca-file", c.alertmanager_ca_file,
                      "--on-alert: CA of an https Alertmanager");
  command->add_option("--alertmanager-credentials-file", c.alertmanager_credentials_file,
                      "--on-alert: 'user:password' for Alertmanager's basic auth");
  command->add_option("--web-config", c.web_config,
                      "--on-alert: TLS and basic-auth users of the receiver (the `serve` web "
                      "config); needed off loopback");
  command
      ->add_option("--agent-port", c.agent_port,
                   "--on-alert: agent port on nodes named by instance/hostname/node labels")
      ->capture_default_str();
  command
      ->add_option("--cooldown", c.cooldown_seconds,
                   "--on-alert: at most one capture per alert name and node this often, s")
      ->capture_default_str();
  command->add_option("--max-concurrent", c.max_concurrent, "--on-alert: captures at once")
      ->capture_default_str();
  command
      ->add_option("--max-captures-per-alert", c.max_captures_per_alert,
                   "--on-alert: capture folders kept per alert name and node; then alerts are "
                   "skipped until old ones are removed")
      ->capture_default_str();
  command
      ->add_option("--max-duration-ms", c.max_duration_ms,
                   "--on-alert: longest capture an alert's annotation may ask for")
      ->capture_default_str();
  command
      ->add_option("--findings-ttl", c.findings_ttl_seconds,
                   "--on-alert: findings alerts end after this, s (or when the alert resolves)")
      ->capture_default_str();
  // `--on-alert` is a daemon: SIGINT/SIGTERM is its normal stop (exit 0, as `serve` and `agent`);
  // a one-shot capture that is interrupted exits 128 + signal (docs/POLICIES.md).
  actions.push_back({command,
                     [options] {
                       const int code =
                           capture::RunCapture(*options, TraceAnalysis(), std::cout, std::cerr);
                       if (options->on_alert.empty() && CancellationRequested()) {
                         return CancellationExitCode();
                       }
                       return code;
                     },
                     /*signal_is_normal_stop=*/true});
}

}  // namespace xpuperf::cli

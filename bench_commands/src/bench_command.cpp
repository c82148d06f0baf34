// `xpuperf bench`: list the benchmarks, run a suite, write the result directory, print a summary.
#include "xpuperf/bench_commands/bench_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>
#include <thread>

#include "xpuperf/bench/machine_state.h"
#include "xpuperf/bench/queue.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/bench/results.h"
#include "xpuperf/bench/runner.h"
#include "xpuperf/bench/suite.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/bench_commands/bench_summary.h"
#include "xpuperf/builtin_benchmarks.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
#include "xpuperf/pjrt/plugin.h"
#include "xpuperf/render/text_table.h"

namespace xpuperf::bench_commands {
namespace {

int PrintList(const bench::BenchmarkRegistry& registry, std::ostream& out) {
  render::TextTable table("Benchmarks",
                          {{"benchmark"}, {"component"}, {"default sweep"}, {"what"}});
  for (const auto& benchmark : registry.benchmarks()) {
    // Each point as its parameters ("m=4096 n=4096 precision=fp32"), points apart by "; ".
    std::string sweep;
    for (const auto& point : benchmark->default_sweep()) {
      std::string text;
      for (const auto& [key, value] : point.items()) {
        text += (text.empty() ? "" : " ") + key + "=" +
                (value.is_string() ? value.get<std::string>() : value.dump());
      }
      sweep += (sweep.empty() ? "" : "; ") + (text.empty() ? std::string("defaults") : text);
    }
    table.AddRow({benchmark->name(), std::string(bench::ComponentName(benchmark->component())),
                  sweep, benchmark->description()});
  }
  out << table.Render(120);
  // The typed parameters of each sweep point: type, range or choices, (default).
  out << "\nSweep-point parameters: type, range or choices (default)\n";
  for (const auto& benchmark : registry.benchmarks()) {
    if (const auto schema = benchmark->parameter_schema()) {
      out << "  " << benchmark->name() << ": " << bench::DescribeSchema(*schema) << "\n";
    }
  }
  out << "\nSuites (built in):";
  for (const auto& [name, text] : bench::BuiltinSuites()) out << " " << name;
  out << "\n";
  return kExitOk;
}

Result<bench::RunFilter> MakeFilter(const BenchOptions& options,
                                    const bench::BenchmarkRegistry& registry) {
  bench::RunFilter filter;
  for (const std::string& name : options.benchmarks) {
    if (registry.Find(name) == nullptr) {
      return MakeError(ErrorCode::kNotFound,
                       fmt::format("unknown benchmark '{}' (known: {})", name, registry.Names()));
    }
  }
  std::vector<std::string> components = options.only;
  if (options.action != "run") components.push_back(options.action);
  for (const std::string& name : components) {
    XPUPERF_ASSIGN_OR_RETURN(const bench::Component component, bench::ParseComponent(name));
    filter.components.push_back(component);
  }
  filter.benchmarks = options.benchmarks;
  return filter;
}

// Unstable points on stderr, where the user reads: the first few with their first reason, then
// how many more (results.jsonl and summary.csv hold every reason).
void WarnUnstable(const std::vector<bench::Measurement>& measurements, std::ostream& err) {
  constexpr size_t kShown = 6;
  size_t unstable = 0;
  for (const bench::Measurement& m : measurements) {
    if (m.stable) continue;
    if (++unstable <= kShown) {
      err << fmt::format("xpuperf bench: warning: {} {} is unstable: {}\n", m.benchmark, m.metric,
                         m.unstable_reasons.empty() ? "no reason" : m.unstable_reasons.front());
    }
  }
  if (unstable > kShown) {
    err << fmt::format("xpuperf bench: warning: ... and {} more unstable figures\n",
                       unstable - kShown);
  }
  if (unstable > 0) {
    err << fmt::format(
        "xpuperf bench: {} of {} figures are unstable (stable: false, with the "
        "reasons, in results.jsonl and summary.csv); `bench check`, `roofline` and "
        "`compare` do not judge them\n",
        unstable, measurements.size());
  }
}

// The options a resumed run needs, saved in environment.json "resume" (a suite file by its
// absolute path: the resumed run may start elsewhere).
nlohmann::json ResumeOptions(const BenchOptions& options) {
  nlohmann::json r = nlohmann::json::object();
  std::string suite = options.suite;
  if (suite.find('/') != std::string::npos || suite.ends_with(".yaml")) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(suite, error);
    if (!error) suite = absolute.string();
  }
  r["suite"] = suite;
  r["action"] = options.action;
  r["only"] = options.only;
  r["benchmarks"] = options.benchmarks;
  if (options.threads) r["threads"] = *options.threads;
  if (options.samples) r["samples"] = *options.samples;
  if (options.min_sample_seconds) r["min_sample_seconds"] = *options.min_sample_seconds;
  if (options.target_cv) r["target_cv"] = *options.target_cv;
  if (options.max_point_seconds) r["max_point_seconds"] = *options.max_point_seconds;
  if (options.point_time_cap) r["point_time_cap"] = *options.point_time_cap;
  if (!options.pjrt_plugin.empty()) r["pjrt_plugin"] = options.pjrt_plugin;
  return r;
}

// The options of the partial run in options.resume, or why it cannot be resumed.
Result<BenchOptions> OptionsToResume(const BenchOptions& given,
                                     const bench::ResultDirectory& previous) {
  const std::string& dir = given.resume;
  if (!previous.partial) {
    return MakeError(ErrorCode::kInvalidArgument,
                     dir +
                         " is a complete run: nothing to resume (--resume takes the directory "
                         "of a run a stop request ended)");
  }
  const nlohmann::json& saved = previous.environment.value("resume", nlohmann::json::object());
  if (!saved.is_object() || !saved.contains("suite") || !saved["suite"].is_string()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     dir + "/environment.json has no \"resume\" options to run it again with");
  }
  try {
    BenchOptions options;
    options.resume = given.resume;
    options.out = dir;
    options.suite = saved["suite"].get<std::string>();
    options.action = saved.value("action", std::string("run"));
    options.only = saved.value("only", std::vector<std::string>{});
    options.benchmarks = saved.value("benchmarks", std::vector<std::string>{});
    if (saved.contains("threads")) options.threads = saved["threads"].get<int>();
    if (saved.contains("samples")) options.samples = saved["samples"].get<int>();
    if (saved.contains("min_sample_seconds"))
      options.min_sample_seconds = saved["min_sample_seconds"].get<double>();
    if (saved.contains("target_cv")) options.target_cv = saved["target_cv"].get<double>();
    if (saved.contains("max_point_seconds"))
      options.max_point_seconds = saved["max_point_seconds"].get<double>();
    if (saved.contains("point_time_cap"))
      options.point_time_cap = saved["point_time_cap"].get<double>();
    options.pjrt_plugin = saved.value("pjrt_plugin", std::string());
    return options;
  } catch (const nlohmann::json::exception& e) {
    return MakeError(ErrorCode::kParse,
                     dir + "/environment.json: its \"resume\" options are malformed: " + e.what());
  }
}

Status RunAndWrite(const BenchOptions& options, const bench::BenchmarkRegistry& registry,
                   const bench::ResultDirectory* previous, std::ostream& out, std::ostream& err) {
  XPUPERF_ASSIGN_OR_RETURN(bench::Suite suite, bench::LoadSuite(options.suite));
  XPUPERF_RETURN_IF_ERROR(bench::ValidateSuite(suite, registry));
  XPUPERF_ASSIGN_OR_RETURN(const bench::RunFilter filter, MakeFilter(options, registry));
  for (bench::SuiteEntry& entry : suite.entries) {
    if (options.samples) entry.sampling.samples = *options.samples;
    if (options.min_sample_seconds) entry.sampling.min_sample_seconds = *options.min_sample_seconds;
    if (options.target_cv) entry.sampling.target_cv = *options.target_cv;
    if (options.max_point_seconds) entry.sampling.max_point_seconds = *options.max_point_seconds;
    if (options.point_time_cap) entry.sampling.time_cap_seconds = *options.point_time_cap;
  }
  XPUPERF_ASSIGN_OR_RETURN(const Device device, cpu::LocalCpuDevice());
  bench::RunInfo run;
  run.host = HostName();
  run.suite = suite.name;
  run.timestamp_ns = SystemClock::Instance().WallNs();
  run.run_id = bench::MakeRunId(run.timestamp_ns, run.host);
  run.device = device;
  run.resume = ResumeOptions(options);
  std::vector<bench::Measurement> measurements;
  std::vector<std::string> done;
  if (previous != nullptr) {
    // The resumed run keeps the first one's id, its measurements and what it skipped.
    if (!previous->run_id.empty()) run.run_id = previous->run_id;
    for (const bench::ResultRecord& r : previous->records) measurements.push_back(r.measurement);
    run.skipped = previous->skipped;
    done = previous->points_done;
  }
  const std::string directory = options.out.empty() ? "results/" + run.run_id : options.out;
  // Checked again when writing; refusing here saves running the whole suite first.
  if (previous == nullptr) XPUPERF_RETURN_IF_ERROR(bench::CheckResultDirectoryWritable(directory));

  bench::HostQueue queue;
  bench::RunContext context;
  context.device = &device;
  context.queue = &queue;
  context.threads = options.threads.value_or(0);
  err << fmt::format("xpuperf bench: suite {} on {} ({}), run {}{}\n", suite.name, device.model,
                     device.id, run.run_id,
                     previous != nullptr ? fmt::format(" (resumed: {} points done, {} to run)",
                                                       done.size(), previous->points_pending.size())
                                         : std::string());
  // gpu_* benchmarks run on each CUDA device; without one they are skipped with the reason.
  const std::vector<Device> gpus = cuda_bench::ListCudaDevices();
  for (const Device& gpu : gpus) {
    err << fmt::format("xpuperf bench: gpu_* benchmarks also on {} ({})\n", gpu.model, gpu.id);
  }
  const auto start = SystemClock::Instance().MonotonicNs();
  run.machine_window_start = bench::ReadMachineState("/");
  std::this_thread::sleep_for(std::chrono::duration<double>(bench::kIdleWindowSeconds));
  run.machine_before = bench::ReadMachineState("/");
  for (const std::string& reason :
       bench::BusyAtStart(*run.machine_window_start, *run.machine_before)) {
    err << "xpuperf bench: warning: the machine is busy before the run (" << reason
        << "): figures may be low and are judged point by point\n";
  }
  XPUPERF_RETURN_IF_ERROR(CheckCancelled());
  XPUPERF_ASSIGN_OR_RETURN(bench::SuiteOutcome outcome,
                           bench::RunSuite(suite, filter, registry, context, err, gpus, done));
  run.machine_after = bench::ReadMachineState("/");
  run.inconsistencies = outcome.inconsistencies;
  for (bench::Measurement& m : outcome.measurements) measurements.push_back(std::move(m));
  for (std::string& s : outcome.skipped) run.skipped.push_back(std::move(s));
  if (!outcome.complete && measurements.empty() && run.skipped.empty()) {
    return CheckCancelled();  // stopped before any point finished: nothing worth keeping
  }
  if (measurements.empty() && run.skipped.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "nothing ran: no benchmark of suite " + suite.name + " matches the filter");
  }
  run.partial = !outcome.complete;
  run.points_done = outcome.done;
  run.points_pending = outcome.pending;
  XPUPERF_RETURN_IF_ERROR(previous != nullptr
                              ? bench::ReplaceResultDirectory(directory, measurements, run)
                              : bench::WriteResultDirectory(directory, measurements, run));
  const double seconds = static_cast<double>(SystemClock::Instance().MonotonicNs() - start) / 1e9;
  if (run.partial) {
    err << fmt::format(
        "xpuperf bench: stopped: {} points done, {} not run; the partial results are in {}/ "
        "(marked partial; `bench check`, `compare` and `roofline` read them and say so); "
        "`xpuperf bench run --resume {}` runs the rest\n",
        run.points_done.size(), run.points_pending.size(), directory, directory);
    return CheckCancelled();
  }
  out << RenderBenchSummary(measurements);
  out << RenderSkipped(run.skipped);
  WarnUnstable(measurements, err);
  out << fmt::format("{} measurements in {:.1f} s; results in {}/\n", measurements.size(), seconds,
                     directory);
  return Status::Ok();
}

Status ValidateOverrides(const BenchOptions& options) {
  const int cpus = static_cast<int>(bench::AllowedCpus().size());
  const int max_threads = 4 * std::max(cpus, 1);
  if (options.threads && (*options.threads < 1 || *options.threads > max_threads)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--threads must be between 1 and {} (4 x the {} CPUs this process "
                                 "may use; got {})",
                                 max_threads, cpus, *options.threads));
  }
  if (options.samples && (*options.samples < 1 || *options.samples > 100000)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("--samples must be between 1 and 100000 (got {})", *options.samples));
  }
  if (options.min_sample_seconds &&
      !(*options.min_sample_seconds >= 1e-6 && *options.min_sample_seconds <= 1.0)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--min-sample-seconds must be between 1e-06 and 1 (got {})",
                                 *options.min_sample_seconds));
  }
  if (options.target_cv && !(*options.target_cv >= 0.001 && *options.target_cv <= 10)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("--target-cv must be between 0.001 and 10 (got {})", *options.target_cv));
  }
  if (options.max_point_seconds &&
      !(*options.max_point_seconds >= 0 && *options.max_point_seconds <= 600)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--max-point-seconds must be between 0 and 600 (got {})",
                                 *options.max_point_seconds));
  }
  if (options.point_time_cap &&
      !(*options.point_time_cap >= 0 && *options.point_time_cap <= 86400)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--point-time-cap must be between 0 (no cap) and 86400 (got {})",
                                 *options.point_time_cap));
  }
  return Status::Ok();
}

// --pjrt-plugin: loaded (dlopen, GetPjrtApi, the version checks, initialise; pjrt/plugin.h) before
// anything runs, so that a wrong path fails at once, in one line, instead of being passed over by
// discovery (which lists only files that exist) or failing point by point. The benchmarks load the
// same path again, which returns this plugin (one per path per process).
Status CheckPjrtPlugin(const std::string& path) {
  if (path.empty()) return Status::Ok();
  auto plugin = pjrt::Plugin::Load(path);
  if (!plugin.ok()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--pjrt-plugin: {}", plugin.error().message));
  }
  return Status::Ok();
}

// $XPUPERF_PJRT_PLUGIN set to --pjrt-plugin for the run, then put back as it was: PJRT points that
// name no plugin resolve one through pjrt/discovery.h, where that variable comes first, so the
// option outranks the variable and the installed plugins, and a point's own `plugin:` outranks
// the option. Not thread-safe (setenv): made before the suite starts its threads, undone after
// they have ended.
class ScopedPjrtPluginVariable {
 public:
  explicit ScopedPjrtPluginVariable(const std::string& plugin) : active_(!plugin.empty()) {
    if (!active_) return;
    if (const char* previous = std::getenv(kName)) previous_ = previous;
    ::setenv(kName, plugin.c_str(), 1);
  }
  ~ScopedPjrtPluginVariable() {
    if (!active_) return;
    if (previous_) {
      ::setenv(kName, previous_->c_str(), 1);
    } else {
      ::unsetenv(kName);
    }
  }
  ScopedPjrtPluginVariable(const ScopedPjrtPluginVariable&) = delete;
  ScopedPjrtPluginVariable& operator=(const ScopedPjrtPluginVariable&) = delete;

 private:
  static constexpr const char* kName = "XPUPERF_PJRT_PLUGIN";
  bool active_;
  std::optional<std::string> previous_;
};

}  // namespace

int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  const bench::BenchmarkRegistry registry = MakeBuiltinBenchmarkRegistry();
  if (options.action == "list") return PrintList(registry, out);
  if (Status valid = ValidateOverrides(options); !valid.ok()) {
    err << "xpuperf bench: error: " << valid.error().message << "\n";
    return kExitUsage;
  }
  if (Status plugin = CheckPjrtPlugin(options.pjrt_plugin); !plugin.ok()) {
    err << "xpuperf bench: error: " << plugin.error().message << "\n";
    return kExitUsage;
  }
  std::optional<bench::ResultDirectory> previous;
  BenchOptions effective = options;
  if (!options.resume.empty()) {
    if (!options.out.empty() || !options.only.empty() || !options.benchmarks.empty() ||
        options.suite != "quick" || options.threads || options.samples ||
        options.min_sample_seconds || options.target_cv || options.max_point_seconds ||
        options.point_time_cap || !options.pjrt_plugin.empty()) {
      err << "xpuperf bench: error: --resume runs the rest of a run with the options it was "
             "started with: give it alone\n";
      return kExitUsage;
    }
    auto read = bench::ReadResultDirectory(options.resume);
    if (!read.ok()) {
      err << "xpuperf bench: error: --resume: " << read.error().message << "\n";
      return ExitCodeFor(read.error());
    }
    previous = std::move(*read);
    auto resumed = OptionsToResume(options, *previous);
    if (!resumed.ok()) {
      err << "xpuperf bench: error: " << resumed.error().message << "\n";
      return kExitUsage;
    }
    effective = std::move(*resumed);
    if (Status plugin = CheckPjrtPlugin(effective.pjrt_plugin); !plugin.ok()) {
      err << "xpuperf bench: error: " << plugin.error().message << "\n";
      return kExitUsage;
    }
  }
  const ScopedPjrtPluginVariable plugin_variable(effective.pjrt_plugin);
  if (Status status = RunAndWrite(effective, registry, previous ? &*previous : nullptr, out, err);
      !status.ok()) {
    err << "xpuperf bench: error: " << status.error().message << "\n";
    return ExitCodeFor(status.error());
  }
  return kExitOk;
}

}  // namespace xpuperf::bench_commands

#include "recording.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cmath>
#include <memory>
#include <ostream>

#include "html_report.h"
#include "job_process.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/job_tree.h"
#include "xpuperf/record/sampler.h"
#include "xpuperf/record/timeline_files.h"

namespace xpuperf::record {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

// Written by the signal handler, read by the loop.
volatile sig_atomic_t g_stop_signal = 0;
volatile sig_atomic_t g_stop_count = 0;
volatile sig_atomic_t g_job_pid = 0;

void OnStopSignal(int sig, siginfo_t* info, void*) {
  const pid_t job = g_job_pid;
  g_stop_count = g_stop_count + 1;
  if (job > 0 && g_stop_count >= 2) {
    // A second stop signal: the job ignored the first, so it is killed (its files still close
    // properly: the recording ends when the job is reaped).
    ::kill(job, SIGKILL);
  } else if (job > 0 && (info == nullptr || info->si_code != SI_KERNEL)) {
    // A signal from the terminal (si_code SI_KERNEL) reached the whole foreground process group,
    // the job included; one sent to xpuperf alone (kill, systemd, a batch scheduler) is passed on.
    ::kill(job, sig);
  }
  g_stop_signal = sig;
}

volatile sig_atomic_t g_child_changed = 0;
// Wakes the sleep and says a child changed state: the loop calls waitpid only then (and every
// 0.1 s, in case), not at every 1 kHz tick.
void OnChild(int) { g_child_changed = 1; }

class SignalScope {
 public:
  SignalScope() {
    struct sigaction stop {};
    stop.sa_sigaction = OnStopSignal;
    stop.sa_flags = SA_SIGINFO;
    sigemptyset(&stop.sa_mask);
    ::sigaction(SIGINT, &stop, &old_int_);
    ::sigaction(SIGTERM, &stop, &old_term_);
    struct sigaction child {};
    child.sa_handler = OnChild;
    child.sa_flags = SA_NOCLDSTOP;
    sigemptyset(&child.sa_mask);
    ::sigaction(SIGCHLD, &child, &old_chld_);
  }
  ~SignalScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGCHLD, &old_chld_, nullptr);
    g_job_pid = 0;
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{}, old_chld_{};
};

int64_t MonotonicNow() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

// Sleeps until the monotonic deadline; returns early on a signal.
void SleepUntil(int64_t deadline_ns) {
  timespec ts{};
  ts.tv_sec = deadline_ns / kNsPerSecond;
  ts.tv_nsec = deadline_ns % kNsPerSecond;
  ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

class Recording {
 public:
  Recording(Session& session, const RecordOptions& options, std::ostream& log)
      : session_(session), options_(options), log_(log) {}

  Result<RecordOutcome> Run();

 private:
  Status TakeSample();
  void AddBmcReadings();
  void ReportProgress(int64_t now_ns) const;
  nlohmann::json Summary(bool partial) const;
  nlohmann::json BmcSummary() const;
  double CpuSecondsUsed() const;

  Session& session_;
  const RecordOptions& options_;
  std::ostream& log_;
  SeriesTable table_;
  TimelineAccumulator stats_;
  std::optional<Sampler> sampler_;
  std::unique_ptr<BmcPowerSource> bmc_;
  TimelineFiles files_;
  int job_pid_ = 0;
  std::optional<JobExit> exit_;
  int64_t start_ns_ = 0;
  double start_cpu_s_ = 0;
  int64_t polls_ = 0;
  int64_t ticks_kept_ = 0;
};

double ProcessCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double Recording::CpuSecondsUsed() const { return ProcessCpuSeconds() - start_cpu_s_; }

void Recording::AddBmcReadings() {
  if (!bmc_) return;
  // Each reading is a tick of its own at the instant ipmitool answered, which lies between the
  // previous tick and the one about to be taken (taken after this), so the ticks stay in order.
  for (const BmcSample& sample : bmc_->TakeNew()) {
    Tick tick;
    tick.mono_ns = sample.mono_ns;
    tick.wall_ns = sample.wall_ns;
    Labels labels;
    labels.Set(labels::kDomain, sample.domain);
    tick.values.push_back({table_.Intern(metrics::kPower, kBmcDevice, labels), sample.watts});
    files_.Append(tick, table_);
    stats_.Add(tick, table_);
  }
}

Status Recording::TakeSample() {
  ++polls_;
  AddBmcReadings();
  XPUPERF_ASSIGN_OR_RETURN(Tick tick, sampler_->Sample(table_));
  // A tick where no source was due (1 kHz, nothing faster than 10 ms here) holds nothing to keep.
  if (tick.values.empty()) return Status::Ok();
  files_.Append(tick, table_);
  stats_.Add(tick, table_);
  ++ticks_kept_;
  return Status::Ok();
}

// "xpuperf record: 30 s of 60 s, about 30 s left; 301 samples; job 1234 running".
void Recording::ReportProgress(int64_t now_ns) const {
  const double elapsed = static_cast<double>(now_ns - start_ns_) / 1e9;
  std::string line = fmt::format("xpuperf record: {:.0f} s", elapsed);
  if (options_.duration_s > 0) {
    line += fmt::format(" of {:g} s, about {:.0f} s left", options_.duration_s,
                        std::max(0.0, options_.duration_s - elapsed));
  }
  line += fmt::format("; {} samples", ticks_kept_);
  if (!options_.command.empty() && job_pid_ > 0) {
    line += fmt::format("; job {} running", job_pid_);
  } else if (options_.attach_pid > 0) {
    line += fmt::format("; process {} running", options_.attach_pid);
  }
  log_ << line << "\n" << std::flush;
}

nlohmann::json Recording::Summary(bool partial) const {
  SummaryInput in;
  in.table = &table_;
  in.stats = &stats_;
  in.command = options_.command;
  in.pid = job_pid_;
  in.rate_hz = options_.rate_hz;
  in.partial = partial;
  in.exit = exit_;
  in.unavailable = sampler_->NeverAvailable();
  if (bmc_ && bmc_->readings() == 0) {
    in.unavailable.push_back(
        Unavailable{std::string(metrics::kPower), std::string(kBmcDevice), bmc_->reason()});
  }
  in.bmc = BmcSummary();
  in.capacity_bytes = sampler_->device_memory_bytes();
  in.peak_job_processes = sampler_->peak_job_processes();
  in.polls = polls_;
  in.recorder_cpu_seconds = CpuSecondsUsed();
  in.recorder_wall_seconds = static_cast<double>(MonotonicNow() - start_ns_) / 1e9;
  return BuildSummary(in);
}

nlohmann::json Recording::BmcSummary() const {
  if (!bmc_) return nullptr;
  nlohmann::json out;
  out["method"] = bmc_->method().empty() ? nlohmann::json(nullptr) : nlohmann::json(bmc_->method());
  out["poll_period_seconds"] = bmc_->period_s();
  const std::optional<double> window = bmc_->bmc_sampling_period_s();
  out["bmc_sampling_period_seconds"] = window ? nlohmann::json(*window) : nlohmann::json(nullptr);
  out["readings"] = bmc_->readings();
  out["failed_calls"] = bmc_->failed_calls();
  const std::string reason = bmc_->reason();
  out["problem"] = reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(reason);
  return out;
}

Result<RecordOutcome> Recording::Run() {
  SignalScope signals;
  g_stop_signal = 0;
  g_stop_count = 0;
  g_child_changed = 0;
  const auto period_ns = static_cast<int64_t>(std::llround(1e9 / options_.rate_hz));
  const int64_t start_ns = MonotonicNow();
  start_ns_ = start_ns;
  start_cpu_s_ = ProcessCpuSeconds();

  RecordingHeader header;
  header.rate_hz = options_.rate_hz;
  header.command = options_.command;
  header.host = HostName();
  for (const Device& d : session_.devices()) header.devices.push_back(d.id);

  // The first sample is the energy baseline; the job starts after it.
  SamplerOptions sampler;
  sampler.rate_hz = options_.rate_hz;
  sampler.root = options_.root;
  sampler.page_size_bytes = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (options_.attach_pid > 0) {
    sampler.job_pid = options_.attach_pid;
    job_pid_ = options_.attach_pid;
  }
  header.pid = job_pid_;
  sampler_.emplace(session_, sampler, SystemClock::Instance());
  // The header's start is the first sample's own instant: opening the files and starting the BMC
  // thread came between an earlier clock reading and the first sample, a gap that a loaded machine
  // can stretch past 10 ms (analyze --telemetry aligns by the first sample's wall time).
  ++polls_;
  XPUPERF_ASSIGN_OR_RETURN(Tick first, sampler_->Sample(table_));
  header.start_wall_ns = first.wall_ns;
  XPUPERF_ASSIGN_OR_RETURN(files_, TimelineFiles::Open(options_.out_dir, header));
  if (!first.values.empty()) {
    files_.Append(first, table_);
    stats_.Add(first, table_);
  }
  if (options_.bmc) bmc_ = std::make_unique<BmcPowerSource>(*options_.bmc);
  if (!options_.command.empty()) {
    XPUPERF_ASSIGN_OR_RETURN(pid_t pid, StartJob(options_.command));
    job_pid_ = pid;
    g_job_pid = pid;  // published to the handler; SIGCHLD only wakes the loop, waitpid reaps
    sampler_->AttachJob(pid);
  }
  XPUPERF_RETURN_IF_ERROR(files_.Flush());

  int64_t next_ns = start_ns + period_ns;
  int64_t last_flush_ns = MonotonicNow();
  int64_t last_summary_ns = last_flush_ns;
  int64_t last_progress_ns = last_flush_ns;
  const auto progress_ns = static_cast<int64_t>(options_.progress_period_s * 1e9);
  const auto flush_ns = static_cast<int64_t>(options_.flush_period_s * 1e9);
  const auto summary_ns = static_cast<int64_t>(options_.summary_period_s * 1e9);
  const auto duration_ns = static_cast<int64_t>(options_.duration_s * 1e9);
  bool stop_reported = false;
  constexpr int64_t kWaitAnywayNs = kNsPerSecond / 10;
  int64_t last_wait_ns = INT64_MIN / 2;
  while (true) {
    SleepUntil(next_ns);
    const int64_t now = MonotonicNow();
    if (job_pid_ > 0 && !options_.command.empty()) {
      int status = 0;
      pid_t done = 0;
      if (g_child_changed != 0 || now - last_wait_ns >= kWaitAnywayNs) {
        g_child_changed = 0;
        last_wait_ns = now;
        done = ::waitpid(job_pid_, &status, WNOHANG);
      }
      if (done == job_pid_) {
        exit_ = JobExit{WIFEXITED(status), WIFEXITED(status) ? WEXITSTATUS(status) : 0,
                        WIFSIGNALED(status), WIFSIGNALED(status) ? WTERMSIG(status) : 0};
        g_job_pid = 0;
        break;
      }
      if (g_stop_signal != 0 && !stop_reported) {
        log_ << "xpuperf record: signal " << g_stop_signal
             << " passed to the job; recording until it exits (a second signal kills it)\n";
        stop_reported = true;
      }
    } else {
      if (g_stop_signal != 0) break;
      // Reads /proc/PID/stat: every 0.1 s, like the waitpid above, not at every tick.
      if (options_.attach_pid > 0 && now - last_wait_ns >= kWaitAnywayNs) {
        last_wait_ns = now;
        if (!ProcessIsRunning(options_.attach_pid)) break;
      }
    }
    if (duration_ns > 0 && now - start_ns >= duration_ns) break;
    if (now < next_ns) continue;  // woken early by a signal
    // Behind by more than a period (a stalled machine): skip the missed ticks, never burst.
    next_ns += period_ns;
    if (now - next_ns > period_ns) next_ns = now + period_ns;
    XPUPERF_RETURN_IF_ERROR(TakeSample());
    if (now - last_flush_ns >= flush_ns) {
      XPUPERF_RETURN_IF_ERROR(files_.Flush());
      last_flush_ns = now;
    }
    if (now - last_summary_ns >= summary_ns) {
      XPUPERF_RETURN_IF_ERROR(files_.WriteSummary(Summary(true)));
      last_summary_ns = now;
    }
    if (progress_ns > 0 && now - last_progress_ns >= progress_ns) {
      ReportProgress(now);
      last_progress_ns = now;
    }
  }
  // The closing sample: the energy counters' final reading (and the BMC's last answer, its call
  // in flight killed).
  if (bmc_) bmc_->Stop();
  XPUPERF_RETURN_IF_ERROR(TakeSample());
  XPUPERF_RETURN_IF_ERROR(files_.Flush());
  RecordOutcome outcome;
  outcome.summary = Summary(false);
  outcome.exit = exit_;
  XPUPERF_RETURN_IF_ERROR(files_.WriteSummary(outcome.summary));
  if (options_.html) {
    XPUPERF_RETURN_IF_ERROR(WriteOutputFile(options_.out_dir + "/" + std::string(kReportHtml),
                                            RenderRecordHtml(table_, stats_, outcome.summary)));
  }
  return outcome;
}

}  // namespace

Result<RecordOutcome> Record(Session& session, const RecordOptions& options, std::ostream& log) {
  if (!(options.rate_hz > 0) || !std::isfinite(options.rate_hz)) {
    return MakeError(ErrorCode::kInvalidArgument, "the rate must be a positive number of Hz");
  }
  Recording recording(session, options, log);
  return recording.Run();
}

}  // namespace xpuperf::record

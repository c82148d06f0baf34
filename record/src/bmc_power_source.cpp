#include "xpuperf/record/bmc_power_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/pipe.h"
#include "xpuperf/core/run_program.h"

namespace xpuperf::record {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
// How often a call in flight checks for a stop (ms): Ctrl-C ends recording within this.
constexpr int kStopCheckMs = 50;

int64_t Now(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

bool Executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The program's path: as given when it holds a '/', else the first executable on PATH.
std::string FindProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return Executable(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = Concat(dir, "/", program);
    if (Executable(candidate)) return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

std::string Describe(const std::vector<std::string>& args) {
  std::string out = "ipmitool";
  for (const std::string& a : args)
    out += a.find(' ') == std::string::npos ? " " + a : " \"" + a + "\"";
  return out;
}

}  // namespace

BmcPowerSource::BmcPowerSource(BmcPowerOptions options) : options_(std::move(options)) {
  options_.period_s = std::max(1.0, options_.period_s);
  options_.timeout_s = std::max(0.1, options_.timeout_s);
  program_path_ = FindProgram(options_.program);
  if (program_path_.empty()) {
    reason_ = options_.program.find('/') == std::string::npos
                  ? "unsupported: " + options_.program + " not found on PATH"
                  : "unsupported: " + options_.program + " is not an executable file";
    mode_ = Mode::kGone;
    return;
  }
  reason_ = "no answer from the BMC yet";
  thread_ = std::thread([this] { Run(); });
}

BmcPowerSource::~BmcPowerSource() { Stop(); }

void BmcPowerSource::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    if (child_pid_ > 0) ::kill(-child_pid_, SIGKILL);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<BmcSample> BmcPowerSource::TakeNew() {
  std::lock_guard lock(mutex_);
  std::vector<BmcSample> out;
  out.swap(pending_);
  return out;
}

std::string BmcPowerSource::reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}
std::string BmcPowerSource::method() const {
  std::lock_guard lock(mutex_);
  return method_;
}
std::optional<double> BmcPowerSource::bmc_sampling_period_s() const {
  std::lock_guard lock(mutex_);
  return sampling_period_s_;
}
int64_t BmcPowerSource::readings() const {
  std::lock_guard lock(mutex_);
  return readings_;
}
int64_t BmcPowerSource::failed_calls() const {
  std::lock_guard lock(mutex_);
  return failed_calls_;
}

void BmcPowerSource::Run() {
  // Signals are the recorder's: they go to its main thread, never to this one.
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);
  const auto period_ns = static_cast<int64_t>(options_.period_s * 1e9);
  int64_t next_ns = Now(CLOCK_MONOTONIC);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      const auto wait =
          std::chrono::nanoseconds(std::max<int64_t>(0, next_ns - Now(CLOCK_MONOTONIC)));
      wake_.wait_for(lock, wait, [this] { return stop_; });
      if (stop_) return;
    }
    next_ns += period_ns;
    // A call that ran past its period (a slow BMC): the next one starts a period after it ends.
    if (mode_ == Mode::kProbe) {
      Probe();
    } else {
      Poll();
    }
    if (mode_ == Mode::kGone) return;
    const int64_t now_ns = Now(CLOCK_MONOTONIC);
    if (now_ns > next_ns) next_ns = now_ns + period_ns;
  }
}

void BmcPowerSource::Probe() {
  Result<std::string> dcmi = Call({"dcmi", "power", "reading"});
  std::string dcmi_problem;
  if (dcmi.ok()) {
    Result<BmcPowerReading> reading = ParseDcmiPowerReading(*dcmi);
    if (reading.ok()) {
      mode_ = Mode::kDcmi;
      {
        std::lock_guard lock(mutex_);
        method_ = "DCMI power reading (`ipmitool dcmi power reading`, the instantaneous figure)";
      }
      Publish(*reading);
      return;
    }
    dcmi_problem = reading.error().message;
  } else {
    dcmi_problem = dcmi.error().message;
    if (last_call_timed_out_) {
      Fail("no BMC (" + dcmi_problem + ")");
      mode_ = Mode::kGone;
      return;
    }
  }
  for (Mode mode : {Mode::kSdrPowerSupply, Mode::kSdrCurrent}) {
    Result<std::string> sdr =
        Call({"sdr", "type", mode == Mode::kSdrPowerSupply ? "Power Supply" : "Current"});
    if (!sdr.ok()) {
      // The BMC does not answer at all: the DCMI call's own error says why.
      Fail("no BMC (" + dcmi_problem + ")");
      mode_ = Mode::kGone;
      return;
    }
    Result<BmcPowerReading> reading = ParseSdrPowerSensors(*sdr);
    if (!reading.ok()) continue;
    mode_ = mode;
    {
      std::lock_guard lock(mutex_);
      method_ = fmt::format("SDR power sensors (`ipmitool sdr type {}`: {})",
                            mode == Mode::kSdrPowerSupply ? "\"Power Supply\"" : "Current",
                            reading->sensors);
    }
    Publish(*reading);
    return;
  }
  Fail("unsupported: the BMC has no DCMI power reading (" + dcmi_problem +
       ") and no node or PSU input power sensor in its SDR");
  mode_ = Mode::kGone;
}

void BmcPowerSource::Poll() {
  const bool dcmi = mode_ == Mode::kDcmi;
  Result<std::string> text =
      dcmi ? Call({"dcmi", "power", "reading"})
           : Call({"sdr", "type", mode_ == Mode::kSdrPowerSupply ? "Power Supply" : "Current"});
  if (!text.ok()) return Fail(text.error().message);
  Result<BmcPowerReading> reading =
      dcmi ? ParseDcmiPowerReading(*text) : ParseSdrPowerSensors(*text);
  if (!reading.ok()) return Fail(reading.error().message);
  Publish(*reading);
}

void BmcPowerSource::Publish(const BmcPowerReading& reading) {
  BmcSample sample{Now(CLOCK_MONOTONIC), Now(CLOCK_REALTIME), reading.watts,
                   mode_ == Mode::kDcmi ? std::string(kBmcDcmiDomain) : std::string(kBmcSdrDomain)};
  std::lock_guard lock(mutex_);
  reason_.clear();
  if (reading.sampling_period_s) sampling_period_s_ = reading.sampling_period_s;
  // The same BMC timestamp and figures: the BMC has not taken a new sample since the last call.
  const std::string key = reading.bmc_timestamp.empty()
                              ? ""
                              : fmt::format("{}|{}|{}", reading.bmc_timestamp, reading.watts,
                                            reading.average_watts.value_or(-1));
  if (!key.empty() && key == last_key_) return;
  last_key_ = key;
  ++readings_;
  pending_.push_back(sample);
}

void BmcPowerSource::Fail(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (stop_) return;  // the call in flight was killed by Stop(): not the BMC's failure
  reason_ = reason;
  ++failed_calls_;
}

Result<std::string> BmcPowerSource::Call(const std::vector<std::string>& args) {
  const std::string what = Describe(args);
  last_call_timed_out_ = false;
  Pipe out, err;
  if (!out.ok() || !err.ok())
    return MakeError(ErrorCode::kIo, what + ": no pipe: " + std::strerror(errno));
  std::vector<std::string> argv = {program_path_};
  argv.insert(argv.end(), args.begin(), args.end());
  // Its own process group (SpawnInOwnGroup): Ctrl-C at the terminal is the recorder's to handle,
  // and a kill of the group also ends whatever the program started.
  std::unique_lock lock(mutex_);
  if (stop_) return MakeError(ErrorCode::kIo, what + ": " + std::strerror(ECANCELED));
  auto spawned = SpawnInOwnGroup(argv, out, err);
  if (spawned.ok()) child_pid_ = *spawned;
  lock.unlock();
  if (!spawned.ok()) return MakeError(ErrorCode::kIo, what + ": " + spawned.error().message);
  const pid_t pid = *spawned;

  std::string stdout_text, stderr_text;
  const int64_t deadline_ns = Now(CLOCK_MONOTONIC) + static_cast<int64_t>(options_.timeout_s * 1e9);
  std::optional<Error> problem;
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    {
      std::lock_guard guard(mutex_);
      if (stop_) {
        problem = MakeError(ErrorCode::kUnavailable, what + ": stopped");
        break;
      }
    }
    const int64_t left_ns = deadline_ns - Now(CLOCK_MONOTONIC);
    if (left_ns <= 0) {
      problem = MakeError(
          ErrorCode::kUnavailable,
          fmt::format("{} did not answer within {:g} s (killed)", what, options_.timeout_s));
      last_call_timed_out_ = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out.read_end() : -1, POLLIN, 0},
                     {err_open ? err.read_end() : -1, POLLIN, 0}};
    const int wait_ms = static_cast<int>(std::min<int64_t>(kStopCheckMs, left_ns / 1'000'000 + 1));
    if (::poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      std::string& text = i == 0 ? stdout_text : stderr_text;
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      text.append(buffer, static_cast<size_t>(n));
      if (text.size() > kMaxIpmitoolOutputBytes) {
        problem = MakeError(ErrorCode::kParse, what + ": output longer than a power reading");
      }
    }
    if (problem) break;
  }
  // Reap it: after its pipes closed it exits at once; past the deadline (or on a stop) it is
  // killed with its whole group.
  int status = 0;
  bool reaped = false;
  while (!problem) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      reaped = true;
      break;
    }
    if (done < 0 && errno != EINTR) break;
    if (Now(CLOCK_MONOTONIC) >= deadline_ns) {
      problem = MakeError(
          ErrorCode::kUnavailable,
          fmt::format("{} did not exit within {:g} s (killed)", what, options_.timeout_s));
      last_call_timed_out_ = true;
      break;
    }
    ::usleep(2000);
  }
  if (problem) ::kill(-pid, SIGKILL);  // with the group's stragglers (the program's children)
  while (!reaped) {
    const pid_t done = ::waitpid(pid, &status, 0);
    if (done == pid || (done < 0 && errno != EINTR)) reaped = true;
  }
  {
    std::lock_guard guard(mutex_);
    child_pid_ = 0;
  }
  if (problem) return *problem;
  if (WIFSIGNALED(status)) {
    return MakeError(ErrorCode::kIo,
                     fmt::format("{} was killed by signal {}", what, WTERMSIG(status)));
  }
  if (WEXITSTATUS(status) != 0) {
    const std::string line = FirstLine(stderr_text.empty() ? stdout_text : stderr_text);
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("{} exited with {}{}", what, WEXITSTATUS(status),
                                 line.empty() ? "" : ": " + line));
  }
  return stdout_text;
}

}  // namespace xpuperf::record

#include "sdk_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "xpuperf/core/pipe.h"
#include "xpuperf/core/run_program.h"

extern char** environ;

namespace xpuperf::tpu {
namespace {

constexpr size_t kMaxLine = 16 << 20;  // one answer; libtpu's lists are kilobytes
constexpr size_t kMaxMessages = 4;
constexpr size_t kMaxMessageLength = 300;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// libtpu's glog lines ("E0000 00:00:1796636713.298298   19813 env_var_utils.cc:96] Failed …")
// without their prefix; its source-location trailers and logging banner are not messages.
std::string LibtpuMessage(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty() || line.starts_with("===") || line.starts_with("WARNING: Logging before")) {
    return "";
  }
  if (line.find(' ') == std::string_view::npos && line.find(".cc:") != std::string_view::npos) {
    return "";  // learning/…/gcp_metadata_utils.cc:137
  }
  const bool glog = line.size() > 5 && std::strchr("IWEF", line[0]) != nullptr &&
                    std::isdigit(static_cast<unsigned char>(line[1]));
  if (glog) {
    if (const size_t bracket = line.find("] "); bracket != std::string_view::npos) {
      line.remove_prefix(bracket + 2);
    }
  }
  std::string out(line.substr(0, kMaxMessageLength));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

std::string SignalText(int status) {
  if (WIFSIGNALED(status)) {
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       ::strsignal(WTERMSIG(status)));
  }
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

// The environment for the helper: this process's, with PYTHONPATH's relative entries made
// absolute, since the helper runs from "/" (an explicit entry is the user's choice; only the
// working directory Python would add on its own is left out).
std::vector<std::string> HelperEnvironment() {
  std::vector<std::string> out;
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("PYTHONPATH=") || ec) {
      out.emplace_back(entry);
      continue;
    }
    std::string value = "PYTHONPATH=";
    std::string_view rest = entry.substr(std::strlen("PYTHONPATH="));
    bool first = true;
    while (true) {
      const size_t colon = rest.find(':');
      const std::string_view part = rest.substr(0, colon);
      if (!first) value += ':';
      first = false;
      if (!part.empty() && part.front() != '/') {
        value += (cwd / part).lexically_normal().string();
      } else {
        value += part;
      }
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace

std::string_view SdkHelperSource() {
  static constexpr std::string_view kSource =
#include "tpu_sdk_helper_source.inc"
      ;
  return kSource;
}

std::string SdkPython(const SdkOptions& options) {
  if (!options.python.empty()) return options.python;
  if (const char* python = std::getenv("XPUPERF_TPU_SDK_PYTHON"); python && *python) return python;
  return "python3";
}

std::optional<TpuSdkOptions> SdkOptionsFromEnvironment() {
  const char* mode = std::getenv("XPUPERF_TPU_SDK");
  if (mode != nullptr && (std::string_view(mode) == "off" || std::string_view(mode) == "0")) {
    return std::nullopt;
  }
  TpuSdkOptions options;
  if (const char* deadline = std::getenv("XPUPERF_TPU_SDK_DEADLINE"); deadline && *deadline) {
    char* end = nullptr;
    const double seconds = std::strtod(deadline, &end);
    if (end != deadline && *end == '\0' && seconds > 0 && seconds <= 600) {
      options.first_answer_seconds = seconds;
    }
  }
  return options;
}

SdkSource::SdkSource(SdkOptions options) : options_(std::move(options)) {}

SdkSource::~SdkSource() { StopHelper(); }

void SdkSource::StartLocked() {
  ever_started_ = true;
  started_ns_ = NowNs();
  failure_.clear();
  libtpu_messages_.clear();
  pending_ = SdkSnapshot{};
  latest_.reset();
  std::string python = SdkPython(options_);
  if (python.find('/') != std::string::npos && python.front() != '/') {
    // The helper starts in "/": a relative interpreter is taken from here.
    std::error_code ec;
    const std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (!ec) python = (cwd / python).lexically_normal().string();
  }
  Pipe input, output, errors;
  if (!input.ok() || !output.ok() || !errors.ok()) {
    failure_ = fmt::format("cannot start {}: pipe: {}", python, std::strerror(errno));
    ended_ns_ = NowNs();
    return;
  }
  const std::string interval = fmt::format("{:g}", options_.interval_seconds);
  SpawnOptions spawn;
  spawn.input = &input;
  // `python -c` puts its working directory first on sys.path: run it from "/", so that a module
  // dropped in the directory serve (as root) was started from is never imported.
  spawn.working_directory = "/";
  spawn.environment = HelperEnvironment();
  // Its own process group: the canary goes with it.
  Result<pid_t> pid =
      SpawnInOwnGroup({python, "-c", std::string(SdkHelperSource()), "--interval", interval},
                      output, errors, spawn);
  if (!pid.ok()) {
    failure_ =
        fmt::format("cannot start {}: {} (set XPUPERF_TPU_SDK_PYTHON to a Python that has libtpu)",
                    python, pid.error().message);
    ended_ns_ = NowNs();
    return;
  }
  pid_ = *pid;
  running_ = true;
  input_fd_ = ::dup(input.write_end());
  ::fcntl(input_fd_, F_SETFD, FD_CLOEXEC);
  const int out_fd = ::dup(output.read_end());
  const int err_fd = ::dup(errors.read_end());
  ::fcntl(out_fd, F_SETFD, FD_CLOEXEC);
  ::fcntl(err_fd, F_SETFD, FD_CLOEXEC);
  reader_ = std::thread([this, out_fd, err_fd] { ReadHelper(out_fd, err_fd); });
}

void SdkSource::StopHelper() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (input_fd_ >= 0) ::close(input_fd_);
    input_fd_ = -1;
    // The helper has nothing to save: its group (with a canary still importing) goes at once.
    if (running_ && pid_ > 0) ::kill(-pid_, SIGKILL);
  }
  if (reader_.joinable()) reader_.join();
}

void SdkSource::ReadHelper(int out_fd, int err_fd) {
  std::string out_buffer, err_buffer;
  bool out_open = true, err_open = true, too_long = false;
  char chunk[65536];
  while (out_open || err_open) {
    pollfd fds[2] = {{out_open ? out_fd : -1, POLLIN, 0}, {err_open ? err_fd : -1, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, chunk, sizeof(chunk));
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      std::string& buffer = i == 0 ? out_buffer : err_buffer;
      buffer.append(chunk, static_cast<size_t>(n));
      size_t newline;
      while ((newline = buffer.find('\n')) != std::string::npos) {
        const std::string line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        if (i == 0) {
          TakeLine(line);
        } else {
          TakeLogLine(line);
        }
      }
      if (buffer.size() > kMaxLine) {
        if (i == 0) too_long = true;
        buffer.clear();
        if (i == 0) ::kill(-pid_, SIGKILL);
      }
    }
  }
  ::close(out_fd);
  ::close(err_fd);
  int status = 0;
  pid_t waited;
  do {
    waited = ::waitpid(pid_, &status, 0);
  } while (waited < 0 && errno == EINTR);
  std::lock_guard<std::mutex> lock(mutex_);
  if (too_long) {
    failure_ = fmt::format("libtpu's SDK helper sent an answer over {} MiB", kMaxLine >> 20);
  } else if (failure_.empty()) {
    failure_ = WithLibtpuMessage(fmt::format("libtpu's SDK helper ({}) {}", SdkPython(options_),
                                             waited == pid_ ? SignalText(status) : "ended"));
  }
  running_ = false;
  ended_ns_ = NowNs();
  answered_.notify_all();
}

void SdkSource::TakeLine(std::string_view line) {
  nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!doc.is_object()) {
    libtpu_messages_.push_back(LibtpuMessage(line));  // something printed on its stdout
    if (libtpu_messages_.size() > kMaxMessages) libtpu_messages_.pop_front();
    return;
  }
  if (auto e = doc.find("error"); e != doc.end() && e->is_string()) {
    failure_ = e->get<std::string>().substr(0, 2 * kMaxMessageLength);
    return;
  }
  if (doc.value("ready", false)) {
    pending_.libtpu_version = doc.value("libtpu_version", "");
    pending_.python = doc.value("python", "");
    if (auto m = doc.find("metrics"); m != doc.end() && m->is_array()) {
      for (const auto& name : *m) {
        if (name.is_string() && pending_.supported.size() < 1000) {
          pending_.supported.push_back(name.get<std::string>());
        }
      }
    }
    return;
  }
  auto values = doc.find("values");
  if (values == doc.end() || !values->is_object()) return;
  auto snapshot = std::make_shared<SdkSnapshot>(pending_);
  for (const auto& [name, entry] : values->items()) {
    if (!entry.is_object()) continue;
    SdkMetric metric;
    if (auto data = entry.find("data"); data != entry.end() && data->is_array()) {
      for (const auto& item : *data) {
        if (item.is_string()) metric.data.push_back(item.get<std::string>());
      }
    }
    if (auto error = entry.find("error"); error != entry.end() && error->is_string()) {
      metric.error = error->get<std::string>().substr(0, 2 * kMaxMessageLength);
    }
    if (auto d = entry.find("description"); d != entry.end() && d->is_string()) {
      pending_.descriptions[name] = d->get<std::string>();
    }
    snapshot->values[name] = std::move(metric);
  }
  snapshot->descriptions = pending_.descriptions;
  snapshot->messages.assign(libtpu_messages_.begin(), libtpu_messages_.end());
  snapshot->received_ns = NowNs();
  latest_ = std::move(snapshot);
  answered_.notify_all();
}

void SdkSource::TakeLogLine(std::string_view line) {
  std::string message = LibtpuMessage(line);
  if (message.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  libtpu_messages_.push_back(std::move(message));
  if (libtpu_messages_.size() > kMaxMessages) libtpu_messages_.pop_front();
}

std::string SdkSource::WithLibtpuMessage(std::string reason) const {
  for (auto it = libtpu_messages_.rbegin(); it != libtpu_messages_.rend(); ++it) {
    if (!it->empty()) return fmt::format("{} (libtpu: {})", reason, *it);
  }
  return reason;
}

SdkSnapshot SdkSource::Announced() {
  std::lock_guard<std::mutex> lock(mutex_);
  SdkSnapshot out = pending_;
  out.messages.assign(libtpu_messages_.begin(), libtpu_messages_.end());
  return out;
}

Result<std::shared_ptr<const SdkSnapshot>> SdkSource::Latest() {
  std::unique_lock<std::mutex> lock(mutex_);
  const int64_t now = NowNs();
  const auto seconds = [](double s) { return static_cast<int64_t>(s * 1e9); };
  if (!running_ && (!ever_started_ || now - ended_ns_ >= seconds(options_.restart_after_seconds))) {
    if (reader_.joinable()) {
      lock.unlock();
      reader_.join();
      lock.lock();
    }
    StartLocked();
  }
  const int64_t first_deadline = started_ns_ + seconds(options_.first_answer_seconds);
  while (running_ && !latest_ && NowNs() < first_deadline) {
    answered_.wait_for(lock, std::chrono::nanoseconds(first_deadline - NowNs()));
  }
  const double stale = std::max(10.0, 5 * options_.interval_seconds);
  const double age = latest_ ? static_cast<double>(NowNs() - latest_->received_ns) / 1e9 : 0.0;
  if (latest_ && age <= stale) return latest_;
  if (!running_) return MakeError(ErrorCode::kUnavailable, failure_);
  if (latest_) {
    return MakeError(
        ErrorCode::kUnavailable,
        WithLibtpuMessage(fmt::format("libtpu's SDK has not answered for {:.0f} s", age)));
  }
  // libtpu's first message off Google Cloud comes after ~30 s of metadata-server retries.
  const std::string reason =
      fmt::format("libtpu's SDK did not answer within {:g} s", options_.first_answer_seconds);
  if (!libtpu_messages_.empty())
    return MakeError(ErrorCode::kUnavailable, WithLibtpuMessage(reason));
  return MakeError(ErrorCode::kUnavailable,
                   reason +
                       " (off Google Cloud libtpu waits for the GCE metadata server: set "
                       "TPU_SKIP_MDS_QUERY=1; XPUPERF_TPU_SDK_DEADLINE=S waits longer)");
}

}  // namespace xpuperf::tpu

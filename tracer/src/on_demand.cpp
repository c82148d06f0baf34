#include "xpuperf/tracer/on_demand.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "xpuperf/core/kineto_ipc.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::tracer {

namespace {

// The process and up to 10 ancestors, stopping before pid 1, as Kineto reports them.
std::vector<int32_t> PidAndAncestors() {
  std::vector<int32_t> pids = {static_cast<int32_t>(getpid())};
  while (pids.size() < 11) {
    std::ifstream stat("/proc/" + std::to_string(pids.back()) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos || close + 4 >= text.size()) break;
    // ") S <ppid> ..."
    int32_t parent = 0;
    const char* begin = text.data() + close + 4;
    auto [end, ec] = std::from_chars(begin, text.data() + text.size(), parent);
    if (ec != std::errc() || parent <= 1) break;
    pids.push_back(parent);
  }
  return pids;
}

std::string Value(const std::string& config, const std::string& key) {
  std::istringstream lines(config);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  }
  return "";
}

int64_t Integer(const std::string& text, int64_t fallback) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value >= 0 ? value : fallback;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Poller {
 public:
  Status Start(const OnDemandOptions& options) {
    std::lock_guard lock(mutex_);
    if (thread_.joinable()) return MakeError(ErrorCode::kInvalidArgument, "already polling");
    const std::string name =
        "xpuperf-tracer-" + std::to_string(getpid()) + "-" + std::to_string(NowMs() % 1000000);
    XPUPERF_ASSIGN_OR_RETURN(kineto::IpcEndpoint endpoint,
                             kineto::IpcEndpoint::Bind(name, options.socket_dir));
    endpoint_.emplace(std::move(endpoint));
    options_ = options;
    stop_ = false;
    thread_ = std::thread([this] { Loop(); });
    return {};
  }

  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    endpoint_.reset();
  }

  std::atomic<uint64_t> sessions{0};

 private:
  // Sleeps up to `ms`; false when asked to stop.
  bool Wait(int64_t ms) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(ms, 0)),
                           [this] { return stop_; });
  }

  void Loop() {
    const std::vector<int32_t> pids = PidAndAncestors();
    while (Wait(0)) {
      kineto::KinetoRequest request;
      request.type = Enabled() ? 0 : kineto::kActivityProfilerBit;
      request.job_id = options_.job_id;
      request.pids = pids;
      const std::string datagram =
          kineto::EncodeIpcDatagram("req", kineto::EncodeKinetoRequest(request));
      if (endpoint_->SendTo(options_.agent_endpoint, datagram).ok()) {
        auto reply = endpoint_->Receive(90);  // Kineto waits 9 x 10 ms
        if (reply.ok() && !reply->timed_out) {
          auto message = kineto::ParseIpcDatagram(reply->bytes);
          if (message.ok() && !message->payload.empty()) RunSession(message->payload);
        }
      }
      if (!Wait(options_.poll_interval_ms)) break;
    }
  }

  void RunSession(const std::string& config) {
    const std::string log_file = Value(config, "ACTIVITIES_LOG_FILE");
    if (log_file.empty() || Enabled()) return;
    const int64_t start_ms = Integer(Value(config, "PROFILE_START_TIME"), 0);
    const int64_t duration_ms = Integer(Value(config, "ACTIVITIES_DURATION_MSECS"), 500);
    if (start_ms > 0 && start_ms + 10000 < NowMs()) return;  // Kineto's rule: too old
    if (start_ms > NowMs() && !Wait(start_ms - NowMs())) return;
    Options options;
    options.path = kineto::KinetoOutputPath(log_file, static_cast<int32_t>(getpid()));
    options.process_name = options_.process_name;
    if (Status started = tracer::Start(options); !started.ok()) {
      std::fprintf(stderr, "xpuperf tracer: on-demand trace not started: %s\n",
                   started.error().message.c_str());
      return;
    }
    Wait(duration_ms);
    if (tracer::Stop().ok()) ++sessions;
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  OnDemandOptions options_;
  std::optional<kineto::IpcEndpoint> endpoint_;
  std::thread thread_;
};

Poller& TheOne() {
  static Poller* poller = new Poller();  // never destroyed: the thread may outlive statics
  return *poller;
}

}  // namespace

bool StartOnDemandFromEnvironment() {
  if (std::getenv("XPUPERF_TRACER_AGENT") == nullptr) return false;
  OnDemandOptions options;
  options.socket_dir = kineto::IpcSocketDirFromEnvironment();
  if (const char* job = std::getenv("SLURM_JOB_ID")) options.job_id = Integer(job, 0);
  if (const char* poll = std::getenv("XPUPERF_TRACER_POLL_MS")) {
    options.poll_interval_ms =
        static_cast<int>(std::clamp<int64_t>(Integer(poll, 1000), 10, 600000));
  }
  if (Status started = StartOnDemand(options); !started.ok()) {
    std::fprintf(stderr, "xpuperf tracer: on-demand polling not started: %s\n",
                 started.error().message.c_str());
    return false;
  }
  return true;
}

Status StartOnDemand(const OnDemandOptions& options) { return TheOne().Start(options); }
void StopOnDemand() { TheOne().Stop(); }
uint64_t OnDemandSessions() { return TheOne().sessions; }

}  // namespace xpuperf::tracer

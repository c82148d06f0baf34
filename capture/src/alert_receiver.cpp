// The HTTP side and the capture threads of `capture --on-alert` (alert_receiver.h).
#include "alert_receiver.h"

#include <atomic>
#include <deque>
#include <filesystem>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "capture_id.h"
#include "xpuperf/agent/agent_server.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/concat.h"
#include "xpuperf/core/error_context.h"
#include "xpuperf/exporter/basic_auth.h"
#include "xpuperf/exporter/tls_context.h"
#include "xpuperf/exporter/web_config.h"
#include "xpuperf/http/server.h"

namespace xpuperf::capture {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr size_t kKeptDecisions = 200;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The part of a capture id that names the alert and the agent: "alert-<name>-<agent>", of
// [A-Za-z0-9._-].
std::string CapturePrefixFor(const TriggerDecision& d) {
  std::string base = d.alertname + "-" + d.agent;
  for (char& c : base) {
    const bool safe =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  if (base.size() > 80) base.resize(80);
  return "alert-" + base;
}

// A capture id from the alert name and the agent: [A-Za-z0-9._-], at most 128 characters.
std::string CaptureIdFor(const TriggerDecision& d) { return StampedCaptureId(CapturePrefixFor(d)); }

// Capture folders in `root` made for this alert name and agent (prefix-stamp-random).
int CountCaptureFolders(const std::string& root, const std::string& prefix) {
  std::error_code ec;
  int count = 0;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > prefix.size() + 1 && name.starts_with(prefix + "-") &&
        name.find('-', prefix.size() + 1) != std::string::npos) {
      ++count;
    }
  }
  return count;
}

// A label set as one key (names are unique and sorted in the map).
std::string LabelsKey(const std::map<std::string, std::string>& labels) {
  std::string key;
  for (const auto& [name, value] : labels) key += Concat(name, "\xff", value, "\xff");
  return key;
}

std::string Cut(const std::string& text, size_t bytes) {
  if (text.size() <= bytes) return text;
  size_t end = bytes > 3 ? bytes - 3 : 0;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
  return text.substr(0, end) + "...";
}

}  // namespace

std::string FindingsAlertJson(const ReceivedAlert& alert, const std::string& findings,
                              const std::string& capture_id, const std::string& capture_dir,
                              bool capture_ok, int64_t starts_at_ms, int64_t ends_at_ms) {
  json labels = json::object();
  for (const auto& [name, value] : alert.labels) labels[name] = value;
  labels[kOptInLabel] = kFindingsValue;
  json annotations = json::object();
  for (const auto& [name, value] : alert.annotations) annotations[name] = value;
  annotations["xpuperf_findings"] = findings;
  annotations["xpuperf_capture_id"] = capture_id;
  annotations["xpuperf_capture_dir"] = capture_dir;
  annotations["xpuperf_capture_status"] = capture_ok ? "ok" : "failed";
  json item = {{"labels", labels},
               {"annotations", annotations},
               {"startsAt", alerts::Rfc3339(starts_at_ms)},
               {"endsAt", alerts::Rfc3339(ends_at_ms)}};
  if (!alert.generator_url.empty()) item["generatorURL"] = alert.generator_url;
  return json::array({item}).dump();
}

class AlertReceiver::Impl {
 public:
  explicit Impl(AlertReceiverOptions options)
      : options_(std::move(options)), trigger_(options_.policy) {}
  ~Impl() { Stop(); }

  Status Listen() {
    exporter::WebConfig web;
    if (!options_.web_config_path.empty()) {
      XPUPERF_ASSIGN_OR_RETURN(web, exporter::LoadWebConfig(options_.web_config_path));
    }
    if (!agent::IsLoopbackHost(options_.listen_host) && !web.tls && web.basic_auth_users.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "listening on " + options_.listen_host +
                           " (not loopback) needs --web-config with tls_server_config or "
                           "basic_auth_users");
    }
    auth_ = std::make_unique<exporter::BasicAuth>(web.basic_auth_users);
    headers_ = web.headers;
    headers_.emplace("X-Content-Type-Options", "nosniff");
    http::ServerOptions http;
    http.host = options_.listen_host;
    http.port = options_.port;
    http.workers = 4;
    http.max_open_connections = 256;
    http.max_connections_per_client = 64;
    http.request_timeout_seconds = 10;
    http.idle_timeout_seconds = 10;
    http.write_timeout_seconds = 10;
    // Bodies are counted as they arrive (chunked ones too) and refused (413) past 1 MiB;
    // compressed bodies are refused (415): Alertmanager sends plain JSON.
    http.limits.max_body_bytes = kMaxWebhookBodyBytes;
    http.limits.methods = {"GET", "HEAD", "POST"};
    if (web.tls) {
      const exporter::TlsConfig config = *web.tls;
      const std::string path = options_.web_config_path;
      http.configure_tls = [config, path](SSL_CTX& ctx) -> Status {
        Status checked = exporter::ConfigureTls(ctx, config);
        if (checked.ok()) return {};
        return WithContext(checked.error(), "web config '" + path + "'");
      };
    }
    auto server = http::Server::Start(
        std::move(http),
        [this](const http::Request& req, http::Response& res) { Handle(req, res); });
    if (!server.ok()) return server.error();
    server_ = std::move(server).value();
    port_ = server_->port();
    tls_ = server_->tls();
    return {};
  }

  void Stop() {
    if (server_ != nullptr) server_->Stop();
    std::list<CaptureThread> captures;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      captures.swap(captures_);
    }
    for (auto& capture : captures) capture.thread.join();
  }

  int HandleWebhook(const std::string& body) {
    auto message = ParseWebhookMessage(body);
    if (!message.ok()) {
      Log("refused a webhook message: " + message.error().message);
      return 400;
    }
    for (const ReceivedAlert& alert : message->alerts) Consider(alert);
    return 200;
  }

  std::string DecisionsJson() const {
    std::lock_guard lock(mutex_);
    json list = json::array();
    for (const json& d : decisions_) list.push_back(d);
    return json{{"decisions", list}, {"captures_running", trigger_.running()}}.dump(2) + "\n";
  }

  int port_ = 0;
  bool tls_ = false;

 private:
  void Handle(const http::Request& req, http::Response& res) {
    for (const auto& [name, value] : headers_) res.SetHeader(name, value);
    const bool webhook = req.path == "/" || req.path == "/webhook";
    const bool decisions = req.path == "/api/v1/decisions";
    const char* allowed = webhook ? "POST" : "GET, HEAD";
    const bool method_ok =
        webhook ? req.method == "POST" : (req.method == "GET" || req.method == "HEAD");
    if ((webhook || decisions) && !method_ok) {
      res.status = 405;
      res.SetHeader("Allow", allowed);
      res.SetBody(std::string("only ") + allowed + "\n", "text/plain; charset=utf-8");
      return;
    }
    if (auth_->enabled() && !auth_->Check(std::string(req.HeaderValue("Authorization")))) {
      res.status = 401;
      res.SetHeader("WWW-Authenticate", "Basic");
      res.SetBody("Unauthorized\n", "text/plain; charset=utf-8");
      return;
    }
    if (webhook) {
      res.status = HandleWebhook(req.body);
      res.SetBody(res.status == 200 ? "ok\n" : "not an Alertmanager webhook message (v4)\n",
                  "text/plain; charset=utf-8");
    } else if (decisions) {
      res.SetBody(DecisionsJson(), "application/json");
    } else {
      res.status = 404;
      res.SetBody("404 page not found\n", "text/plain; charset=utf-8");
    }
  }

  void Consider(const ReceivedAlert& alert) {
    const std::string key = LabelsKey(alert.labels);
    if (!alert.firing()) {
      ResolveFindings(alert, key);
      return;
    }
    TriggerDecision d = trigger_.Decide(alert, AlertTrigger::Clock::now());
    json record = {{"time", alerts::Rfc3339(NowMs())},
                   {"alertname", d.alertname},
                   {"agent", d.agent},
                   {"action", d.action == TriggerAction::kCapture ? "capture" : "skip"}};
    if (d.action == TriggerAction::kSkip) {
      record["reason"] = d.reason;
      Log("alert " + Name(d) + ": skipped: " + d.reason);
      Remember(std::move(record));
      return;
    }
    const int kept = CountCaptureFolders(options_.out_root, CapturePrefixFor(d));
    if (kept >= options_.max_captures_per_alert) {
      trigger_.Finished(d);
      record["action"] = "skip";
      record["reason"] = std::to_string(kept) + " capture folders of this alert are kept in " +
                         options_.out_root + " (--max-captures-per-alert " +
                         std::to_string(options_.max_captures_per_alert) + "): remove old ones";
      Log("alert " + Name(d) + ": skipped: " + record["reason"].get<std::string>());
      Remember(std::move(record));
      return;
    }
    const std::string id = CaptureIdFor(d);
    record["capture_id"] = id;
    record["duration_ms"] = d.duration_ms;
    Log("alert " + Name(d) + ": capturing " + std::to_string(d.duration_ms) + " ms as " + id);
    std::lock_guard lock(mutex_);
    if (stopping_) {
      trigger_.Finished(d);
      return;
    }
    PushDecision(std::move(record));
    // Threads of finished captures are joined here, so the list holds only running ones.
    for (auto it = captures_.begin(); it != captures_.end();) {
      if (!it->done->load()) {
        ++it;
        continue;
      }
      it->thread.join();
      it = captures_.erase(it);
    }
    running_keys_.insert(key);
    auto done = std::make_shared<std::atomic<bool>>(false);
    captures_.push_back({std::thread([this, alert, d, id, key, done] {
                           RunOne(alert, d, id, key);
                           done->store(true);
                         }),
                         done});
  }

  void RunOne(const ReceivedAlert& alert, const TriggerDecision& d, const std::string& id,
              const std::string& key) {
    CaptureOptions run = options_.capture;
    run.hosts = {d.agent};
    run.jax_targets.clear();
    run.duration_ms = d.duration_ms;
    run.iterations = 0;
    run.capture_id = id;
    run.out_dir = (fs::path(options_.out_root) / id).string();
    std::ostringstream progress;
    auto report = RunCapture(run, progress);
    std::istringstream lines(progress.str());
    for (std::string line; std::getline(lines, line);) Log(line);
    bool ok = false;
    std::string findings;
    if (!report.ok()) {
      findings = "capture failed: " + report.error().message;
    } else if (report->hosts.empty() || !report->hosts[0].ok) {
      findings = "capture failed: " +
                 (report->hosts.empty() ? std::string("no host") : report->hosts[0].error);
    } else if (!options_.analyse) {
      ok = true;
      findings = "captured " + std::to_string(report->trace_files()) + " trace files (no analysis)";
    } else {
      ok = true;
      auto summary = options_.analyse(run.out_dir);
      const std::string files = std::to_string(report->trace_files()) + " trace files";
      if (summary.ok()) {
        findings = *summary;
      } else if (summary.error().code == ErrorCode::kUnsupported) {
        findings = "captured " + files + "; " + summary.error().message;
      } else {
        findings = "captured " + files + ", but the analysis failed: " + summary.error().message;
      }
    }
    findings = Cut(findings, options_.max_findings_bytes);
    Log("alert " + Name(d) + ": " + (ok ? "findings: " : "") + Cut(findings, 300));
    const int64_t now = NowMs();
    bool resolved_meanwhile = false;
    {
      std::lock_guard lock(mutex_);
      running_keys_.erase(key);
      resolved_meanwhile = resolved_while_running_.erase(key) > 0;
    }
    // An alert that resolved while its capture ran gets a findings alert that is resolved too.
    const int64_t ends_at =
        resolved_meanwhile ? now : now + static_cast<int64_t>(options_.findings_ttl.count());
    const std::string body = FindingsAlertJson(alert, findings, id, run.out_dir, ok, now, ends_at);
    const bool posted = PostToAlertmanagers(body, Name(d));
    {
      std::lock_guard lock(mutex_);
      // Findings alerts past their endsAt have ended in Alertmanager on their own: forget them.
      for (auto it = findings_.begin(); it != findings_.end();) {
        const bool ended = it->second.starts_at_ms + options_.findings_ttl.count() < now;
        it = ended ? findings_.erase(it) : std::next(it);
      }
      if (!resolved_meanwhile) findings_[key] = Posted{alert, findings, id, run.out_dir, ok, now};
      PushDecision({{"time", alerts::Rfc3339(NowMs())},
                    {"alertname", d.alertname},
                    {"agent", d.agent},
                    {"action", "findings"},
                    {"capture_id", id},
                    {"capture_dir", run.out_dir},
                    {"capture_status", ok ? "ok" : "failed"},
                    {"findings", findings},
                    {"posted", posted}});
    }
    trigger_.Finished(d);
  }

  void ResolveFindings(const ReceivedAlert& alert, const std::string& key) {
    Posted posted;
    {
      std::lock_guard lock(mutex_);
      auto it = findings_.find(key);
      if (it == findings_.end()) {
        if (running_keys_.contains(key)) resolved_while_running_.insert(key);
        return;
      }
      posted = it->second;
      findings_.erase(it);
    }
    const int64_t now = NowMs();
    const std::string body =
        FindingsAlertJson(posted.alert, posted.findings, posted.capture_id, posted.capture_dir,
                          posted.ok, posted.starts_at_ms, std::max(now, posted.starts_at_ms));
    std::string name = alert.labels.count("alertname") ? alert.labels.at("alertname") : "?";
    Log("alert " + name + ": resolved; resolving its findings alert " + posted.capture_id);
    PostToAlertmanagers(body, name);
  }

  bool PostToAlertmanagers(const std::string& body, const std::string& name) {
    bool all = !options_.alertmanagers.empty();
    for (const alerts::ReceiverConfig& am : options_.alertmanagers) {
      const std::string url = am.url + "/api/v2/alerts";
      bool done = false;
      std::string last;
      for (int attempt = 1; attempt <= options_.post_attempts && !done; ++attempt) {
        if (attempt > 1 && !SleepUnlessCancelled(1 << (attempt - 2))) break;
        Result<int> status =
            options_.poster ? options_.poster({url, body, &am})
                            : Result<int>(MakeError(ErrorCode::kUnsupported, "no HTTP client"));
        if (status.ok() && *status >= 200 && *status < 300) {
          done = true;
          break;
        }
        last = status.ok() ? "HTTP " + std::to_string(*status) : status.error().message;
        if (status.ok() && *status < 500) break;  // the body is refused: resending cannot help
      }
      if (done) {
        Log(Concat("alert ", name, ": findings posted to ", am.url));
      } else {
        Log(Concat("alert ", name, ": error: findings not posted to ", am.url, ": ", last));
        all = false;
      }
    }
    return all;
  }

  static std::string Name(const TriggerDecision& d) {
    return (d.alertname.empty() ? std::string("?") : d.alertname) +
           (d.agent.empty() ? "" : "@" + d.agent);
  }

  void Remember(json record) {
    std::lock_guard lock(mutex_);
    PushDecision(std::move(record));
  }
  void PushDecision(json record) {  // mutex_ held
    decisions_.push_back(std::move(record));
    if (decisions_.size() > kKeptDecisions) decisions_.pop_front();
  }

  void Log(const std::string& line) {
    if (options_.log == nullptr) return;
    std::lock_guard lock(log_mutex_);
    *options_.log << (line.starts_with("xpuperf capture: ") ? "" : "xpuperf capture: ") << line
                  << "\n";
    options_.log->flush();
  }

  struct CaptureThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  struct Posted {
    ReceivedAlert alert;
    std::string findings, capture_id, capture_dir;
    bool ok = false;
    int64_t starts_at_ms = 0;
  };

  AlertReceiverOptions options_;
  AlertTrigger trigger_;
  std::unique_ptr<exporter::BasicAuth> auth_;
  std::map<std::string, std::string> headers_;
  std::unique_ptr<http::Server> server_;

  mutable std::mutex mutex_;
  bool stopping_ = false;
  std::list<CaptureThread> captures_;
  std::deque<json> decisions_;
  std::map<std::string, Posted> findings_;        // by the alert's label set, while it fires
  std::set<std::string> running_keys_;            // label sets of alerts being captured
  std::set<std::string> resolved_while_running_;  // ... that resolved meanwhile
  std::mutex log_mutex_;
};

AlertReceiver::AlertReceiver(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
AlertReceiver::~AlertReceiver() { Stop(); }

Result<std::unique_ptr<AlertReceiver>> AlertReceiver::Start(AlertReceiverOptions options) {
  auto usage = [](const std::string& why) { return MakeError(ErrorCode::kInvalidArgument, why); };
  const TriggerPolicy& p = options.policy;
  if (p.max_concurrent < 1 || p.max_concurrent > 64) return usage("--max-concurrent must be 1..64");
  if (p.max_duration_ms < 1 || p.max_duration_ms > 3'600'000) {
    return usage("--max-duration-ms must be 1..3600000");
  }
  if (p.default_duration_ms < 1 || p.default_duration_ms > p.max_duration_ms) {
    return usage("--duration-ms must be 1..--max-duration-ms");
  }
  if (p.cooldown.count() < 0) return usage("--cooldown must be >= 0");
  if (p.agent_port < 1 || p.agent_port > 65535) return usage("--agent-port must be 1..65535");
  if (options.out_root.empty()) return usage("--out DIR is required");
  std::error_code ec;
  fs::create_directories(options.out_root, ec);
  if (ec || !fs::is_directory(options.out_root, ec)) {
    return usage("--out '" + options.out_root + "' is not a writable directory");
  }
  for (const auto& am : options.alertmanagers) {
    if (!(am.url.starts_with("http://") || am.url.starts_with("https://"))) {
      return usage("--alertmanager '" + am.url + "' is not an http:// or https:// URL");
    }
  }
  auto impl = std::make_shared<Impl>(std::move(options));
  XPUPERF_RETURN_IF_ERROR(impl->Listen());
  return std::unique_ptr<AlertReceiver>(new AlertReceiver(std::move(impl)));
}

int AlertReceiver::port() const { return impl_->port_; }
bool AlertReceiver::tls() const { return impl_->tls_; }
std::string AlertReceiver::DecisionsJson() const { return impl_->DecisionsJson(); }
int AlertReceiver::HandleWebhook(const std::string& body) { return impl_->HandleWebhook(body); }
void AlertReceiver::Stop() {
  if (impl_) impl_->Stop();
}

}  // namespace xpuperf::capture

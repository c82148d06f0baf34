#include "xpuperf/exporter/metrics_server.h"

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include "gzip.h"
#include "health_json.h"
#include "xpuperf/core/error_context.h"
#include "xpuperf/exporter/basic_auth.h"
#include "xpuperf/exporter/exposition.h"
#include "xpuperf/exporter/tls_context.h"
#include "xpuperf/exporter/web_config.h"
#include "xpuperf/http/server.h"

namespace xpuperf::exporter {

namespace {

constexpr const char* kLandingPage = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>xpuperf exporter</title></head>
<body><h1>xpuperf exporter</h1>
<p>CPU, NVIDIA GPU and TPU telemetry for Prometheus.</p>
<ul>
<li><a href="metrics">/metrics</a> &mdash; Prometheus text 0.0.4 or OpenMetrics 1.0 (by Accept)</li>
<li><a href="health">/health</a> &mdash; 200 when every backend collected recently, else 503</li>
<li><a href="api/v1/snapshot">/api/v1/snapshot</a> &mdash; the latest readings as JSON</li>
</ul></body></html>
)";

// The rendered exposition per format and encoding, valid for one exporter generation.
class ExpositionCache {
 public:
  explicit ExpositionCache(Exporter& exporter) : exporter_(exporter) {}

  std::shared_ptr<const std::string> Get(ExpositionFormat format, bool gzip) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t generation = exporter_.generation();
    if (generation != generation_) {
      variants_ = {};
      generation_ = generation;
    }
    const size_t plain = format == ExpositionFormat::kOpenMetrics100 ? 1 : 0;
    const size_t index = plain + (gzip ? 2 : 0);
    if (variants_[index] == nullptr) {
      if (variants_[plain] == nullptr) {
        variants_[plain] = std::make_shared<const std::string>(Render(*exporter_.Latest(), format));
      }
      if (gzip)
        variants_[index] = std::make_shared<const std::string>(gzip_.Compress(*variants_[plain]));
    }
    return variants_[index];
  }

 private:
  Exporter& exporter_;
  std::mutex mutex_;
  uint64_t generation_ = ~uint64_t{0};
  std::array<std::shared_ptr<const std::string>, 4> variants_;
  GzipCompressor gzip_;  // guarded by mutex_
};

// True when Accept-Encoding lists gzip (or *) without q=0.
bool AcceptsGzip(const std::string& header) {
  size_t start = 0;
  while (start < header.size()) {
    size_t comma = header.find(',', start);
    if (comma == std::string::npos) comma = header.size();
    std::string entry = header.substr(start, comma - start);
    start = comma + 1;
    const size_t first = entry.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    entry = entry.substr(first);
    const bool named = entry.starts_with("gzip") || entry.starts_with("*");
    if (!named) continue;
    const size_t q = entry.find("q=");
    if (q != std::string::npos && std::strtod(entry.c_str() + q + 2, nullptr) <= 0) continue;
    return true;
  }
  return false;
}

}  // namespace

class MetricsServer::Impl {
 public:
  Impl(Exporter& exporter, ServerOptions options)
      : exporter_(exporter), options_(std::move(options)), cache_(exporter) {}
  ~Impl() { StopListening(); }

  void Configure(WebConfig config) {
    std::lock_guard<std::mutex> lock(config_mutex_);
    auth_ = std::make_shared<BasicAuth>(config.basic_auth_users);
    headers_ = std::move(config.headers);
    headers_.emplace("X-Content-Type-Options", "nosniff");
    tls_ = std::move(config.tls);
  }

  Result<WebConfig> ReadConfig() const {
    if (options_.web_config_path.empty()) return WebConfig{};
    XPUPERF_ASSIGN_OR_RETURN(WebConfig config, LoadWebConfig(options_.web_config_path));
    if (config.tls) {
      // Build a context once now: a key that does not match its certificate fails here, with
      // OpenSSL's reason, not at the first handshake.
      SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
      if (ctx == nullptr) return MakeError(ErrorCode::kInternal, "TLS: cannot create a context");
      Status s = ConfigureTls(*ctx, *config.tls);
      SSL_CTX_free(ctx);
      if (!s.ok()) return WithContext(s.error(), "web config '" + options_.web_config_path + "'");
    }
    return config;
  }

  // Creates, binds and starts a server for the current config. `port` 0 = any.
  Status Listen(int port) {
    std::optional<TlsConfig> tls;
    {
      std::lock_guard<std::mutex> lock(config_mutex_);
      tls = tls_;
    }
    http::ServerOptions http;
    http.host = options_.listen.host;
    http.port = port;
    http.workers = options_.max_connections;
    http.max_open_connections = options_.max_open_connections;
    http.max_connections_per_client = options_.max_connections_per_client;
    http.request_timeout_seconds = options_.read_timeout_seconds;
    http.idle_timeout_seconds = options_.read_timeout_seconds;
    http.write_timeout_seconds = options_.write_timeout_seconds;
    http.limits.max_body_bytes = 0;  // GET and HEAD carry no body
    http.limits.methods = {"GET", "HEAD"};
    if (tls) {
      const TlsConfig config = *tls;
      http.configure_tls = [config](SSL_CTX& ctx) { return ConfigureTls(ctx, config); };
    }
    auto server = http::Server::Start(
        std::move(http),
        [this](const http::Request& req, http::Response& res) { Handle(req, res); });
    if (!server.ok()) return server.error();
    port_ = (*server)->port();
    tls_active_ = tls.has_value();
    server_ = std::move(server).value();
    return {};
  }

  void StopListening() {
    if (server_ != nullptr) server_->Stop();
    server_.reset();
  }

  Status Reload() {
    std::lock_guard<std::mutex> reload(reload_mutex_);
    XPUPERF_ASSIGN_OR_RETURN(WebConfig config, ReadConfig());
    const bool had_tls = tls_active_;
    const bool wants_tls = config.tls.has_value();
    Configure(std::move(config));
    // Certificates may have been rotated under the same paths: re-bind whenever TLS is involved.
    if (had_tls || wants_tls) {
      StopListening();
      return Listen(port_);
    }
    return {};
  }

  void Handle(const http::Request& req, http::Response& res) {
    AddHeaders(res);
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.SetHeader("Allow", "GET, HEAD");
      res.SetBody("only GET and HEAD\n", "text/plain; charset=utf-8");
      return;
    }
    std::shared_ptr<BasicAuth> auth;
    {
      std::lock_guard<std::mutex> lock(config_mutex_);
      auth = auth_;
    }
    if (auth->enabled() && !auth->Check(std::string(req.HeaderValue("Authorization")))) {
      res.status = 401;
      res.SetHeader("WWW-Authenticate", "Basic");
      res.SetBody("Unauthorized\n", "text/plain; charset=utf-8");
      return;
    }
    if (req.path == "/metrics") {
      const ExpositionFormat format = NegotiateFormat(std::string(req.HeaderValue("Accept")));
      const bool gzip = AcceptsGzip(std::string(req.HeaderValue("Accept-Encoding")));
      res.SetHeader("Vary", "Accept, Accept-Encoding");
      if (gzip) res.SetHeader("Content-Encoding", "gzip");
      res.SetSharedBody(cache_.Get(format, gzip), std::string(ContentType(format)));
    } else if (req.path == "/health") {
      const HealthReport report = exporter_.Health();
      res.status = report.healthy ? 200 : 503;
      res.SetBody(HealthJson(report), "application/json");
    } else if (req.path == "/api/v1/snapshot" && options_.snapshot_json) {
      res.SetBody(options_.snapshot_json(exporter_.Raw()), "application/json");
    } else if (req.path == "/") {
      res.SetBody(kLandingPage, "text/html; charset=utf-8");
    } else {
      res.status = 404;
      res.SetBody("404 page not found\n", "text/plain; charset=utf-8");
    }
  }

  void AddHeaders(http::Response& res) {
    std::lock_guard<std::mutex> lock(config_mutex_);
    for (const auto& [name, value] : headers_) res.SetHeader(name, value);
  }

  Exporter& exporter_;
  ServerOptions options_;
  ExpositionCache cache_;
  std::mutex config_mutex_;
  std::shared_ptr<BasicAuth> auth_;
  std::map<std::string, std::string> headers_;
  std::optional<TlsConfig> tls_;
  std::mutex reload_mutex_;
  std::unique_ptr<http::Server> server_;
  int port_ = 0;
  bool tls_active_ = false;
};

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MetricsServer::~MetricsServer() { Stop(); }

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(Exporter& exporter,
                                                            ServerOptions options) {
  if (options.max_connections < 1 || options.max_connections > 4096) {
    return MakeError(ErrorCode::kInvalidArgument, "--max-connections must be 1-4096");
  }
  if (options.max_open_connections < 1 || options.max_open_connections > 65536) {
    return MakeError(ErrorCode::kInvalidArgument, "--max-open-connections must be 1-65536");
  }
  if (options.max_connections_per_client < 1 ||
      options.max_connections_per_client > options.max_open_connections) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--max-connections-per-client must be 1 to --max-open-connections");
  }
  auto impl = std::make_unique<Impl>(exporter, std::move(options));
  XPUPERF_ASSIGN_OR_RETURN(WebConfig config, impl->ReadConfig());
  impl->Configure(std::move(config));
  XPUPERF_RETURN_IF_ERROR(impl->Listen(impl->options_.listen.port));
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl)));
}

int MetricsServer::port() const { return impl_->port_; }
bool MetricsServer::tls() const { return impl_->tls_active_; }
Status MetricsServer::Reload() { return impl_->Reload(); }
void MetricsServer::Stop() {
  if (impl_) impl_->StopListening();
}

}  // namespace xpuperf::exporter

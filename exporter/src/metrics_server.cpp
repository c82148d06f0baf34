#include "xpuperf/exporter/metrics_server.h"

#include <httplib.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

#include "gzip.h"
#include "health_json.h"
#include "listen_socket.h"
#include "xpuperf/exporter/basic_auth.h"
#include "xpuperf/exporter/exposition.h"
#include "xpuperf/exporter/tls_context.h"
#include "xpuperf/exporter/web_config.h"

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

void ServeBody(httplib::Response& res, const std::shared_ptr<const std::string>& body,
               std::string_view content_type) {
  // A provider with a known length: served as is (httplib compresses only plain bodies), with no
  // copy of the cached text.
  const size_t size = body->size();
  res.set_content_provider(size, std::string(content_type),
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(body->data() + offset, length);
                           });
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
      if (!s.ok())
        return MakeError(s.error().code,
                         "web config '" + options_.web_config_path + "': " + s.error().message);
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
    std::unique_ptr<httplib::Server> server;
    if (tls) {
      const TlsConfig config = *tls;
      auto ssl = std::make_unique<httplib::SSLServer>(
          [config](SSL_CTX& ctx) { return ConfigureTls(ctx, config).ok(); });
      if (!ssl->is_valid()) return MakeError(ErrorCode::kInvalidArgument, "TLS setup failed");
      server = std::move(ssl);
    } else {
      server = std::make_unique<httplib::Server>();
    }
    Routes(*server);
    const ListenSocket socket(*server);
    const std::string& host = options_.listen.host;
    if (port == 0) {
      port = server->bind_to_any_port(host);
      if (port < 0) port = 0;
    } else if (!server->bind_to_port(host, port)) {
      port = 0;
    }
    if (port == 0) {
      return MakeError(ErrorCode::kUnavailable,
                       "cannot listen on " + host + ":" + std::to_string(options_.listen.port) +
                           " (address in use, or not an address of this host)");
    }
    if (!socket.RaiseBacklog()) {
      return MakeError(ErrorCode::kUnavailable,
                       "cannot set the listen backlog on " + host + ":" + std::to_string(port));
    }
    port_ = port;
    tls_active_ = tls.has_value();
    httplib::Server* raw = server.get();
    server_ = std::move(server);
    auto done = std::make_shared<std::atomic<bool>>(false);
    listener_done_ = done;
    thread_ = std::thread([raw, done] {
      raw->listen_after_bind();
      done->store(true);
    });
    return {};
  }

  void StopListening() {
    // httplib's stop() only stops a loop that is running: a SIGTERM (or SIGHUP's re-bind) that
    // came before the listener thread reached its loop was lost, and the join below waited for
    // ever. Repeat stop() until the listener has returned.
    if (server_ != nullptr) {
      while (listener_done_ && !listener_done_->load()) {
        server_->stop();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (thread_.joinable()) thread_.join();
    server_.reset();
    listener_done_.reset();
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

  void Routes(httplib::Server& server) {
    const auto read_us = static_cast<time_t>(options_.read_timeout_seconds * 1e6);
    const auto write_us = static_cast<time_t>(options_.write_timeout_seconds * 1e6);
    server.set_read_timeout(read_us / 1000000, read_us % 1000000);
    server.set_write_timeout(write_us / 1000000, write_us % 1000000);
    server.set_keep_alive_timeout(static_cast<time_t>(options_.read_timeout_seconds));
    server.set_keep_alive_max_count(1000);
    server.set_payload_max_length(0);  // GET and HEAD carry no body
    // Head and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and the
    // client's delayed ACK hold each keep-alive response back ~40 ms.
    server.set_tcp_nodelay(true);
    const size_t threads = static_cast<size_t>(std::max(1, options_.max_connections));
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };

    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      AddHeaders(res);
      if (req.method != "GET" && req.method != "HEAD") {
        res.status = 405;
        res.set_header("Allow", "GET, HEAD");
        res.set_content("only GET and HEAD\n", "text/plain; charset=utf-8");
        return httplib::Server::HandlerResponse::Handled;
      }
      std::shared_ptr<BasicAuth> auth;
      {
        std::lock_guard<std::mutex> lock(config_mutex_);
        auth = auth_;
      }
      if (auth->enabled() && !auth->Check(req.get_header_value("Authorization"))) {
        res.status = 401;
        res.set_header("WWW-Authenticate", "Basic");
        res.set_content("Unauthorized\n", "text/plain; charset=utf-8");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      const ExpositionFormat format = NegotiateFormat(req.get_header_value("Accept"));
      const bool gzip = AcceptsGzip(req.get_header_value("Accept-Encoding"));
      res.set_header("Vary", "Accept, Accept-Encoding");
      if (gzip) res.set_header("Content-Encoding", "gzip");
      ServeBody(res, cache_.Get(format, gzip), ContentType(format));
    });
    server.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
      const HealthReport report = exporter_.Health();
      res.status = report.healthy ? 200 : 503;
      res.set_content(HealthJson(report), "application/json");
    });
    server.Get("/api/v1/snapshot", [this](const httplib::Request&, httplib::Response& res) {
      if (!options_.snapshot_json) {
        res.status = 404;
        return;
      }
      res.set_content(options_.snapshot_json(exporter_.Raw()), "application/json");
    });
    server.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kLandingPage, "text/html; charset=utf-8");
    });
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty()) {
        res.set_content(std::to_string(res.status) + "\n", "text/plain; charset=utf-8");
      }
    });
  }

  void AddHeaders(httplib::Response& res) {
    std::lock_guard<std::mutex> lock(config_mutex_);
    for (const auto& [name, value] : headers_) res.set_header(name, value);
  }

  Exporter& exporter_;
  ServerOptions options_;
  ExpositionCache cache_;
  std::mutex config_mutex_;
  std::shared_ptr<BasicAuth> auth_;
  std::map<std::string, std::string> headers_;
  std::optional<TlsConfig> tls_;
  std::mutex reload_mutex_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::shared_ptr<std::atomic<bool>> listener_done_;  // set when listen_after_bind returned
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

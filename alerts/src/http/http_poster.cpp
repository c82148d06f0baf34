// The HTTP client of the notifier: cpp-httplib, with TLS through OpenSSL.
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT  // Debian's cpp-httplib.pc defines it already
#define CPPHTTPLIB_OPENSSL_SUPPORT
#endif
#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <thread>

#include "xpuperf/alerts/notifier.h"
#include "xpuperf/core/version.h"

namespace xpuperf::alerts {

HttpPoster DefaultHttpPoster(double timeout_seconds) {
  return [timeout_seconds](const HttpPost& post) -> Result<int> {
    static const std::regex kUrl(R"(^(https?://[^/]+)(/.*)?$)");
    std::smatch m;
    if (!std::regex_match(post.url, m, kUrl)) {
      return MakeError(ErrorCode::kInvalidArgument, fmt::format("bad receiver URL {}", post.url));
    }
    httplib::Client client(m[1].str());
    const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    if (post.receiver != nullptr) {
      const ReceiverConfig& r = *post.receiver;
      if (!r.basic_auth_user.empty())
        client.set_basic_auth(r.basic_auth_user, r.basic_auth_password);
      if (!r.bearer_token.empty()) client.set_bearer_token_auth(r.bearer_token);
      if (!r.ca_file.empty()) client.set_ca_cert_path(r.ca_file);
    }
    client.enable_server_certificate_verification(true);
    httplib::Headers headers = {{"User-Agent", std::string("xpuperf/") + kVersion}};
    const std::string path = m[2].matched ? m[2].str() : "/";
    // The watchdog: at the total deadline, or once the caller cancels, the connection is shut
    // down, which ends a connect, send or read that is in progress.
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    bool stopped = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::thread watchdog([&] {
      std::unique_lock lock(mutex);
      while (!done) {
        if (std::chrono::steady_clock::now() >= deadline ||
            (post.cancel != nullptr && post.cancel->load())) {
          stopped = true;
          client.stop();
          // stop() only shuts a socket down while a request is in flight: repeat until done.
        }
        done_cv.wait_for(lock, std::chrono::milliseconds(20));
      }
    });
    auto response = client.Post(path, headers, post.body, "application/json");
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    done_cv.notify_one();
    watchdog.join();
    if (!response && stopped) {
      const bool cancelled = post.cancel != nullptr && post.cancel->load();
      return MakeError(ErrorCode::kUnavailable,
                       cancelled ? fmt::format("POST {}: cancelled", post.url)
                                 : fmt::format("POST {}: no complete answer within {} s", post.url,
                                               timeout_seconds));
    }
    if (!response) {
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("POST {}: {}", post.url, httplib::to_string(response.error())));
    }
    return response->status;
  };
}

}  // namespace xpuperf::alerts

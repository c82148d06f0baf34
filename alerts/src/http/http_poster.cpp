// The HTTP client of the notifier: cpp-httplib, with TLS through OpenSSL.
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT  // Debian's cpp-httplib.pc defines it already
#define CPPHTTPLIB_OPENSSL_SUPPORT
#endif
#include <fmt/format.h>
#include <httplib.h>

#include <regex>

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
    auto response = client.Post(path, headers, post.body, "application/json");
    if (!response) {
      return MakeError(ErrorCode::kUnavailable,
                       fmt::format("POST {}: {}", post.url, httplib::to_string(response.error())));
    }
    return response->status;
  };
}

}  // namespace xpuperf::alerts

// The web configuration file of Prometheus' exporter-toolkit (--web-config FILE), so one file
// serves node_exporter and xpuperf alike: TLS, client certificates, basic auth with bcrypt hashes
// and extra response headers.
//
//   tls_server_config:
//     cert_file: /etc/xpuperf/tls/tls.crt
//     key_file: /etc/xpuperf/tls/tls.key
//     client_auth_type: RequireAndVerifyClientCert   # optional (default NoClientCert)
//     client_ca_file: /etc/xpuperf/tls/ca.crt        # needed for client certificates
//     min_version: TLS12                             # TLS10..TLS13
//     max_version: TLS13
//   http_server_config:
//     headers: {Strict-Transport-Security: max-age=31536000}
//   basic_auth_users:
//     prometheus: $2y$10$...                         # bcrypt, e.g. htpasswd -nBC 10 ""
//
// Unknown keys are errors (as in exporter-toolkit), so a typo never silently turns security off.
// Inline `cert`/`key`/`client_ca`, `cipher_suites`, `curve_preferences`, `client_allowed_sans`
// and `rate_limit` are refused with a message saying so.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::exporter {

struct TlsConfig {
  std::string cert_file;
  std::string key_file;
  // NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven,
  // RequireAndVerifyClientCert.
  std::string client_auth_type = "NoClientCert";
  std::string client_ca_file;
  std::string min_version = "TLS12";
  std::string max_version = "TLS13";
  friend bool operator==(const TlsConfig&, const TlsConfig&) = default;
};

struct WebConfig {
  std::optional<TlsConfig> tls;
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash
  std::map<std::string, std::string> headers;           // added to every response
};

// Reads and checks the file: YAML shape, known keys, cert/key/CA files readable, bcrypt hashes
// well formed, allowed header names. Errors name the file and the key.
Result<WebConfig> LoadWebConfig(const std::string& path);
// The same from text (for tests and fuzzing); `origin` names it in messages.
Result<WebConfig> ParseWebConfig(const std::string& text, const std::string& origin);

}  // namespace xpuperf::exporter

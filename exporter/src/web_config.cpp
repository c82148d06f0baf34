#include "xpuperf/exporter/web_config.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "xpuperf/core/error_context.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::exporter {

namespace {

Error Bad(const std::string& origin, const std::string& what) {
  return MakeError(ErrorCode::kInvalidArgument, "web config " + origin + ": " + what);
}

// Keys exporter-toolkit knows but xpuperf does not implement.
const std::set<std::string>& UnsupportedTlsKeys() {
  static const std::set<std::string> keys = {"cert",
                                             "key",
                                             "client_ca",
                                             "cipher_suites",
                                             "curve_preferences",
                                             "client_allowed_sans",
                                             "prefer_server_cipher_suites"};
  return keys;
}

// Opened under the input policy (docs/POLICIES.md): a FIFO or device is refused, never blocks.
Status CheckReadable(const std::string& origin, const std::string& key, const std::string& path) {
  Result<InputFile> in = OpenInputFile(path);
  if (!in.ok()) return Bad(origin, key + " '" + path + "' cannot be read: " + in.error().message);
  return {};
}

constexpr int kMinBcryptCost = 4;
constexpr int kMaxBcryptCost = 14;

bool IsBcrypt(const std::string& hash) {
  // $2a$, $2b$ or $2y$, a two-digit cost, '$', 53 characters of salt and hash.
  return hash.size() == 60 && hash[0] == '$' && hash[1] == '2' &&
         (hash[2] == 'a' || hash[2] == 'b' || hash[2] == 'y') && hash[3] == '$' &&
         std::isdigit(static_cast<unsigned char>(hash[4])) &&
         std::isdigit(static_cast<unsigned char>(hash[5])) && hash[6] == '$';
}

Result<TlsConfig> ParseTls(const YAML::Node& node, const std::string& origin) {
  if (!node.IsMap()) return Bad(origin, "tls_server_config must be a mapping");
  TlsConfig tls;
  static const std::set<std::string> kAuthTypes = {
      "NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven",
      "RequireAndVerifyClientCert"};
  static const std::set<std::string> kVersions = {"TLS10", "TLS11", "TLS12", "TLS13"};
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (UnsupportedTlsKeys().count(key)) {
      return Bad(origin, "tls_server_config." + key + " is not supported by xpuperf");
    }
    if (!entry.second.IsScalar())
      return Bad(origin, "tls_server_config." + key + " must be a string");
    const std::string value = entry.second.as<std::string>();
    if (key == "cert_file") {
      tls.cert_file = value;
    } else if (key == "key_file") {
      tls.key_file = value;
    } else if (key == "client_ca_file") {
      tls.client_ca_file = value;
    } else if (key == "client_auth_type") {
      if (!kAuthTypes.count(value)) return Bad(origin, "unknown client_auth_type '" + value + "'");
      tls.client_auth_type = value;
    } else if (key == "min_version" || key == "max_version") {
      if (!kVersions.count(value)) return Bad(origin, "unknown TLS version '" + value + "'");
      (key == "min_version" ? tls.min_version : tls.max_version) = value;
    } else {
      return Bad(origin, "unknown key tls_server_config." + key);
    }
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return Bad(origin, "tls_server_config needs both cert_file and key_file");
  }
  if (tls.min_version > tls.max_version) return Bad(origin, "min_version is above max_version");
  const bool verifies = tls.client_auth_type == "VerifyClientCertIfGiven" ||
                        tls.client_auth_type == "RequireAndVerifyClientCert";
  if (verifies && tls.client_ca_file.empty()) {
    return Bad(origin, "client_auth_type " + tls.client_auth_type + " needs client_ca_file");
  }
  if (Status s = CheckReadable(origin, "cert_file", tls.cert_file); !s.ok()) return s.error();
  if (Status s = CheckReadable(origin, "key_file", tls.key_file); !s.ok()) return s.error();
  if (!tls.client_ca_file.empty()) {
    if (Status s = CheckReadable(origin, "client_ca_file", tls.client_ca_file); !s.ok())
      return s.error();
  }
  return tls;
}

}  // namespace

Result<WebConfig> ParseWebConfig(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Bad(origin, std::string("not valid YAML: ") + e.what());
  }
  WebConfig config;
  if (root.IsNull()) return config;  // an empty file: plain HTTP, no auth
  if (!root.IsMap()) return Bad(origin, "the top level must be a mapping");
  try {
    for (const auto& entry : root) {
      const std::string key = entry.first.as<std::string>();
      const YAML::Node& value = entry.second;
      if (key == "tls_server_config") {
        if (value.IsNull()) continue;
        XPUPERF_ASSIGN_OR_RETURN(auto tls, ParseTls(value, origin));
        config.tls = std::move(tls);
      } else if (key == "basic_auth_users") {
        if (value.IsNull()) continue;
        if (!value.IsMap()) return Bad(origin, "basic_auth_users must map users to bcrypt hashes");
        for (const auto& user : value) {
          const std::string name = user.first.as<std::string>();
          const std::string hash = user.second.IsScalar() ? user.second.as<std::string>() : "";
          if (name.empty() || name.find(':') != std::string::npos) {
            return Bad(origin, "basic_auth_users: a user name must be non-empty, without ':'");
          }
          if (!IsBcrypt(hash)) {
            return Bad(origin, "basic_auth_users." + name + " is not a bcrypt hash ($2y$...)");
          }
          // bcrypt's cost doubles the work per step: cost 10 takes tens of milliseconds per
          // check, 31 days. Sites keep 10-14 (exporter-toolkit's users); 4 is bcrypt's minimum.
          const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
          if (cost < kMinBcryptCost || cost > kMaxBcryptCost) {
            return Bad(origin, "basic_auth_users." + name + ": bcrypt cost " +
                                   std::to_string(cost) + " is outside " +
                                   std::to_string(kMinBcryptCost) + ".." +
                                   std::to_string(kMaxBcryptCost) +
                                   " (every request would pin a worker); rehash it, e.g. "
                                   "htpasswd -nbBC 12 USER PASSWORD");
          }
          if (config.basic_auth_users.count(name) != 0) {
            return Bad(origin, "basic_auth_users." + name + " is given twice");
          }
          config.basic_auth_users[name] = hash;
        }
      } else if (key == "http_server_config") {
        if (value.IsNull()) continue;
        if (!value.IsMap()) return Bad(origin, "http_server_config must be a mapping");
        for (const auto& http : value) {
          const std::string k = http.first.as<std::string>();
          if (k == "http2") continue;  // HTTP/1.1 only; the key is accepted for compatibility
          if (k != "headers") return Bad(origin, "unknown key http_server_config." + k);
          if (!http.second.IsMap())
            return Bad(origin, "http_server_config.headers must be a mapping");
          static const std::set<std::string> kAllowed = {
              "Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options",
              "X-XSS-Protection", "Strict-Transport-Security"};
          for (const auto& h : http.second) {
            const std::string name = h.first.as<std::string>();
            if (!kAllowed.count(name)) return Bad(origin, "header '" + name + "' may not be set");
            const std::string v = h.second.as<std::string>();
            if (v.find_first_of("\r\n") != std::string::npos) {
              return Bad(origin, "header '" + name + "' has a line break");
            }
            config.headers[name] = v;
          }
        }
      } else if (key == "rate_limit") {
        return Bad(origin, "rate_limit is not supported by xpuperf");
      } else {
        return Bad(origin, "unknown key '" + key + "'");
      }
    }
  } catch (const YAML::Exception& e) {
    return Bad(origin, std::string("unexpected value: ") + e.what());
  }
  return config;
}

Result<WebConfig> LoadWebConfig(const std::string& path) {
  // Read under the input policy: a regular file of at most 1 MiB (a FIFO would block a reload).
  Result<std::string> text = ReadInputFile(path, 1 << 20);
  if (!text.ok()) {
    return WithContext(text.error(), "web config '" + path + "' cannot be read");
  }
  return ParseWebConfig(*text, "'" + path + "'");
}

}  // namespace xpuperf::exporter

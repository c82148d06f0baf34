// OpenSSL server contexts from a TlsConfig, as exporter-toolkit configures Go's TLS: certificate
// chain and key, protocol range, client certificate policy.
#pragma once

#include <openssl/ssl.h>

#include "xpuperf/core/status.h"
#include "xpuperf/exporter/web_config.h"

namespace xpuperf::exporter {

// Configures `ctx`; the error carries OpenSSL's reason ("key values mismatch").
Status ConfigureTls(SSL_CTX& ctx, const TlsConfig& tls);

}  // namespace xpuperf::exporter

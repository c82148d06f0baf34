#include "xpuperf/exporter/tls_context.h"

#include <openssl/err.h>

namespace xpuperf::exporter {

namespace {

Error OpenSslError(const std::string& what) {
  const unsigned long code = ERR_get_error();
  char reason[256] = "unknown error";
  if (code != 0) ERR_error_string_n(code, reason, sizeof(reason));
  ERR_clear_error();
  return MakeError(ErrorCode::kInvalidArgument, "TLS: " + what + ": " + reason);
}

int Version(const std::string& name) {
  if (name == "TLS10") return TLS1_VERSION;
  if (name == "TLS11") return TLS1_1_VERSION;
  if (name == "TLS13") return TLS1_3_VERSION;
  return TLS1_2_VERSION;
}

int AcceptAny(int, X509_STORE_CTX*) { return 1; }

}  // namespace

Status ConfigureTls(SSL_CTX& ctx, const TlsConfig& tls) {
  ERR_clear_error();
  SSL_CTX_set_options(
      &ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_set_min_proto_version(&ctx, Version(tls.min_version)) != 1 ||
      SSL_CTX_set_max_proto_version(&ctx, Version(tls.max_version)) != 1) {
    return OpenSslError("protocol versions");
  }
  if (SSL_CTX_use_certificate_chain_file(&ctx, tls.cert_file.c_str()) != 1) {
    return OpenSslError("cert_file '" + tls.cert_file + "'");
  }
  if (SSL_CTX_use_PrivateKey_file(&ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return OpenSslError("key_file '" + tls.key_file + "'");
  }
  if (SSL_CTX_check_private_key(&ctx) != 1) return OpenSslError("key does not match the cert");
  if (!tls.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(&ctx, tls.client_ca_file.c_str(), nullptr) != 1) {
      return OpenSslError("client_ca_file '" + tls.client_ca_file + "'");
    }
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca_file.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(&ctx, names);
  }
  const std::string& type = tls.client_auth_type;
  if (type == "RequestClientCert") {
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, AcceptAny);
  } else if (type == "RequireAnyClientCert") {
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, AcceptAny);
  } else if (type == "VerifyClientCertIfGiven") {
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr);
  } else if (type == "RequireAndVerifyClientCert") {
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  } else {
    SSL_CTX_set_verify(&ctx, SSL_VERIFY_NONE, nullptr);
  }
  return {};
}

}  // namespace xpuperf::exporter

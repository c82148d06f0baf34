#include "client_security.h"

#include "xpuperf/core/input_file.h"

namespace xpuperf::capture {

Result<agent::ClientSecurity> ClientSecurityFrom(const CaptureCommandOptions& options) {
  agent::ClientSecurity security;
  security.tls = options.tls || !options.ca_file.empty();
  security.ca_file = options.ca_file;
  security.cert_file = options.cert_file;
  security.key_file = options.key_file;
  if (!options.credentials_file.empty()) {
    auto text = ReadInputFile(options.credentials_file, 4096);
    if (!text.ok()) return MakeError(ErrorCode::kInvalidArgument, text.error().message);
    auto authorization = agent::AuthorizationFromCredentials(*text);
    if (!authorization.ok()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       options.credentials_file + ": " + authorization.error().message);
    }
    security.authorization = *authorization;
  }
  return security;
}

}  // namespace xpuperf::capture

// HTTP basic auth against bcrypt hashes (libxcrypt's crypt_rn), with exporter-toolkit's cache of
// successful checks: a bcrypt of cost 10 takes tens of milliseconds, far too slow for every scrape.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace xpuperf::exporter {

class BasicAuth {
 public:
  explicit BasicAuth(std::map<std::string, std::string> users);  // user -> bcrypt hash

  bool enabled() const { return !users_.empty(); }
  // True when the `Authorization` header value holds a known user and the password its hash
  // accepts. An unknown user costs one bcrypt as well, so timing does not reveal user names.
  bool Check(std::string_view authorization);

 private:
  std::map<std::string, std::string> users_;
  std::string dummy_hash_;  // for unknown users: the cost of the costliest configured hash
  std::mutex mutex_;
  std::set<std::string> accepted_;  // user '\0' password '\0' hash of successful checks
};

// Decodes standard base64 (with or without padding); false on a character outside the alphabet,
// or anything after the padding.
bool DecodeBase64(std::string_view in, std::string& out);
// True when crypt_rn(password, hash) reproduces hash (compared in constant time).
bool BcryptMatches(const std::string& password, const std::string& hash);

}  // namespace xpuperf::exporter

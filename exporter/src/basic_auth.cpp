#include "xpuperf/exporter/basic_auth.h"

#include <crypt.h>

#include <cstring>
#include <memory>

namespace xpuperf::exporter {

namespace {
constexpr size_t kMaxCached = 1024;

// A bcrypt hash (cost 10, fresh salt) checked against when the user is unknown, so that an
// unknown user takes as long as a wrong password.
const std::string& DummyHash() {
  static const std::string hash = [] {
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    if (crypt_gensalt_rn("$2y$", 10, nullptr, 0, salt, sizeof(salt)) == nullptr)
      return std::string();
    auto data = std::make_unique<crypt_data>();
    std::memset(data.get(), 0, sizeof(crypt_data));
    const char* h = crypt_rn("unknown user", salt, data.get(), sizeof(crypt_data));
    return h == nullptr ? std::string() : std::string(h);
  }();
  return hash;
}
}  // namespace

bool DecodeBase64(std::string_view in, std::string& out) {
  out.clear();
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else if (c == '=') {
      break;
    } else {
      return false;
    }
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return true;
}

bool BcryptMatches(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* result = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  if (result == nullptr || result[0] == '*') return false;
  const size_t n = std::strlen(result);
  if (n != hash.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(result[i] ^ hash[i]);
  return diff == 0;
}

BasicAuth::BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {}

bool BasicAuth::Check(std::string_view authorization) {
  constexpr std::string_view kBasic = "Basic ";
  if (authorization.size() <= kBasic.size() || authorization.size() > 4096) return false;
  if (authorization.substr(0, kBasic.size()) != kBasic) return false;
  std::string decoded;
  if (!DecodeBase64(authorization.substr(kBasic.size()), decoded)) return false;
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  const std::string user = decoded.substr(0, colon);
  const std::string password = decoded.substr(colon + 1);
  auto it = users_.find(user);
  const std::string& hash = it == users_.end() ? DummyHash() : it->second;
  std::string key = user;
  key += '\0';
  key += password;
  key += '\0';
  key += hash;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (it != users_.end() && accepted_.count(key)) return true;
  }
  const bool ok = BcryptMatches(password, hash) && it != users_.end();
  if (ok) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (accepted_.size() >= kMaxCached) accepted_.clear();
    accepted_.insert(std::move(key));
  }
  return ok;
}

}  // namespace xpuperf::exporter

#include "xpuperf/exporter/basic_auth.h"

#include <crypt.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>

namespace xpuperf::exporter {

namespace {
constexpr size_t kMaxCached = 1024;

// The cost of a bcrypt hash ("$2y$12$..." -> 12); 10 when unreadable.
int CostOf(const std::string& hash) {
  if (hash.size() < 7 || hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9') {
    return 10;
  }
  return (hash[4] - '0') * 10 + (hash[5] - '0');
}

// A bcrypt hash of the given cost with a fresh salt, checked against when the user is unknown,
// so that an unknown user takes as long as a wrong password (the cost of the costliest user:
// with a cheaper dummy, a fast refusal would reveal that a name is unknown).
std::string DummyHash(int cost) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2y$", static_cast<unsigned long>(cost), nullptr, 0, salt, sizeof(salt)) ==
      nullptr) {
    return std::string();
  }
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* h = crypt_rn("unknown user", salt, data.get(), sizeof(crypt_data));
  return h == nullptr ? std::string() : std::string(h);
}

bool StartsWithBasic(std::string_view value) {
  // RFC 7617 (after RFC 7235): the scheme name is case-insensitive.
  constexpr std::string_view kBasic = "basic ";
  if (value.size() < kBasic.size()) return false;
  for (size_t i = 0; i < kBasic.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(value[i])) != kBasic[i]) return false;
  }
  return true;
}
}  // namespace

bool DecodeBase64(std::string_view in, std::string& out) {
  out.clear();
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
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
      // Padding ends the text: at most two '=' and nothing after them.
      const std::string_view rest = in.substr(i);
      if (rest.size() > 2 || rest.find_first_not_of('=') != std::string_view::npos) return false;
      return (in.size() % 4) == 0;
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

BasicAuth::BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {
  int cost = 4;
  for (const auto& [user, hash] : users_) cost = std::max(cost, CostOf(hash));
  dummy_hash_ = users_.empty() ? std::string() : DummyHash(cost);
}

bool BasicAuth::Check(std::string_view authorization) {
  constexpr size_t kSchemeLength = 6;  // "Basic "
  if (authorization.size() <= kSchemeLength || authorization.size() > 4096) return false;
  if (!StartsWithBasic(authorization)) return false;
  std::string decoded;
  if (!DecodeBase64(authorization.substr(kSchemeLength), decoded)) return false;
  // crypt(3) stops at a NUL: "secret\0anything" would pass as "secret".
  if (decoded.find('\0') != std::string::npos) return false;
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  const std::string user = decoded.substr(0, colon);
  const std::string password = decoded.substr(colon + 1);
  auto it = users_.find(user);
  const std::string& hash = it == users_.end() ? dummy_hash_ : it->second;
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

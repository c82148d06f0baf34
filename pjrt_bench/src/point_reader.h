// Internal: the parameters of a PJRT benchmark point, read strictly: an unknown key, a value of the
// wrong type or out of range is an error naming the key, so a record states only what ran.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::pjrt_bench {

class PointReader {
 public:
  PointReader(const nlohmann::json& point, std::string benchmark,
              std::initializer_list<const char*> known_keys);
  // kInvalidArgument for a point that is not an object or has a key outside known_keys.
  Status CheckKeys() const;
  Result<int64_t> Integer(const char* key, int64_t fallback, int64_t min, int64_t max) const;
  Result<std::string> String(const char* key, std::string fallback,
                             const std::vector<std::string>& allowed = {}) const;
  Result<bool> Boolean(const char* key, bool fallback) const;

 private:
  const nlohmann::json& point_;
  std::string benchmark_;
  std::vector<std::string> known_;
};

}  // namespace xpuperf::pjrt_bench

#include "capture_id.h"

#include <cstdio>
#include <ctime>
#include <random>

namespace xpuperf::capture {

std::string StampedCaptureId(std::string_view prefix) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &utc);
  std::random_device random;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%06x", random() & 0xffffff);
  std::string id(prefix);
  id += '-';
  id += stamp;
  id += '-';
  id += suffix;
  return id;
}

}  // namespace xpuperf::capture

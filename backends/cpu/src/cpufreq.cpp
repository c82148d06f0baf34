#include "xpuperf/cpu/cpufreq.h"

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {
constexpr uint64_t kHertzPerKilohertz = 1000;
}  // namespace

Result<uint64_t> ParseScalingCurFreqHertz(std::string_view text) {
  std::optional<uint64_t> kilohertz = ParseUnsigned(text);
  // The largest kHz value that still fits in hertz; real clocks are below 10^7 kHz.
  constexpr uint64_t kMaxKilohertz = UINT64_MAX / kHertzPerKilohertz;
  if (!kilohertz || *kilohertz == 0 || *kilohertz > kMaxKilohertz) {
    return MakeError(ErrorCode::kParse, "scaling_cur_freq is not a positive kHz value: '" +
                                            std::string(TrimWhitespace(text)) + "'");
  }
  return *kilohertz * kHertzPerKilohertz;
}

Result<uint64_t> ReadScalingCurFreqHertz(const std::string& root, int cpu) {
  const std::string path = JoinRoot(
      root, "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq");
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  Result<uint64_t> hertz = ParseScalingCurFreqHertz(text);
  if (!hertz.ok()) return MakeError(ErrorCode::kParse, path + ": " + hertz.error().message);
  return hertz;
}

}  // namespace xpuperf::cpu

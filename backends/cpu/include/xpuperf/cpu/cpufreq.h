// cpufreq: the current clock of each logical CPU, from
// /sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq (kHz). Absent on many VMs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::cpu {

// The file's contents ("2100000\n", in kHz) as hertz. kParse when it is not a positive integer.
Result<uint64_t> ParseScalingCurFreqHertz(std::string_view text);
// Reads root/sys/devices/system/cpu/cpu<cpu>/cpufreq/scaling_cur_freq, in hertz.
Result<uint64_t> ReadScalingCurFreqHertz(const std::string& root, int cpu);

}  // namespace xpuperf::cpu

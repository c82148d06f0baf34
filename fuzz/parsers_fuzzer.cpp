// libFuzzer target for every text parser of the CPU backend. The first input byte picks the parser,
// the rest is its input. Each parser must return a value or an error, never crash or hang.
// Build and run: scripts/fuzz.sh [SECONDS]
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/core/cpuinfo.h"
#include "xpuperf/cpu/cpufreq.h"
#include "xpuperf/cpu/hwmon.h"
#include "xpuperf/cpu/meminfo.h"
#include "xpuperf/cpu/powercap.h"
#include "xpuperf/cpu/proc_stat.h"
#include "xpuperf/cpu/process_stats.h"
#include "xpuperf/cpu/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  namespace cpu = xpuperf::cpu;
  switch (data[0] % 10) {
    case 0:
      (void)cpu::ParseProcStat(text);
      break;
    case 1:
      (void)cpu::ParseMemInfo(text);
      break;
    case 2:
      (void)xpuperf::ParseCpuInfo(text);
      break;
    case 3:
      (void)cpu::ParseScalingCurFreqHertz(text);
      break;
    case 4:
      (void)cpu::ParseProcessStat(text);
      break;
    case 5:
      (void)cpu::ParseStatusResidentBytes(text);
      break;
    case 6:
      (void)cpu::ParseStatmResidentPages(text);
      break;
    case 7:
      (void)cpu::ParseSysfsSize(text);
      break;
    case 8:
      (void)cpu::ParseSysfsCpuList(text);
      break;
    default:
      (void)cpu::ParseRaplZoneId(text);
      break;
  }
  return 0;
}

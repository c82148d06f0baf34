#include "xpuperf/bench/core_clock.h"

#include <fmt/format.h>
#include <time.h>
#include <x86intrin.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <string_view>

namespace xpuperf::bench {
namespace {

double ReadKhz(const std::string& root, const char* file) {
  const std::string path =
      (root == "/" ? std::string() : root) + "/sys/devices/system/cpu/cpu0/cpufreq/" + file;
  std::ifstream in(path);
  double khz = 0;
  return in >> khz && khz > 0 && khz < 1e8 ? khz : 0;
}

// "Intel(R) Xeon(R) Platinum 8480+ @ 2.00GHz" -> 2e9; AMD names carry no clock. Parsed by hand
// (no std::regex, whose recursion grows with the match): "@", spaces, up to 3 digits, an optional
// fraction of up to 4 digits, spaces, "GHz".
double ModelNameGhz(std::string_view name) {
  const size_t at = name.rfind('@');
  if (at == std::string_view::npos) return 0;
  size_t i = at + 1;
  while (i < name.size() && name[i] == ' ') ++i;
  double ghz = 0;
  int digits = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && digits < 4) {
    ghz = ghz * 10 + (name[i++] - '0');
    ++digits;
  }
  if (digits == 0 || digits > 3) return 0;
  if (i < name.size() && name[i] == '.') {
    ++i;
    double scale = 0.1;
    int fraction = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && fraction < 5) {
      ghz += (name[i++] - '0') * scale;
      scale /= 10;
      ++fraction;
    }
    if (fraction == 0 || fraction > 4) return 0;
  }
  while (i < name.size() && name[i] == ' ') ++i;
  if (name.substr(i, 3) != "GHz") return 0;
  return ghz > 0 && ghz < 100 ? ghz : 0;
}

}  // namespace

const ClockFigure& CoreClocks::Best() const {
  if (measured.hertz > 0) return measured;
  if (maximum.hertz > 0) return maximum;
  return base;
}

CoreClocks ReadCoreClocks(const CpuInfo& info, const std::string& root) {
  CoreClocks clocks;
  if (const double khz = ReadKhz(root, "base_frequency"); khz > 0) {
    clocks.base = {khz * 1e3, "cpufreq base_frequency"};
  } else if (!info.cpus.empty()) {
    if (const double ghz = ModelNameGhz(info.cpus.front().model_name); ghz > 0) {
      clocks.base = {ghz * 1e9, "the model name's rated clock"};
    }
  }
  if (const double khz = ReadKhz(root, "cpuinfo_max_freq"); khz > 0) {
    clocks.maximum = {khz * 1e3, "cpufreq cpuinfo_max_freq"};
  } else {
    double mhz = 0;
    for (const LogicalCpuInfo& cpu : info.cpus) mhz = std::max(mhz, cpu.mhz.value_or(0));
    if (mhz > 0) {
      clocks.maximum = {mhz * 1e6, "highest 'cpu MHz' in /proc/cpuinfo (on VMs the nominal clock)"};
    }
  }
  return clocks;
}

namespace {

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

ClockProbe ProbeCoreClock(int64_t adds) {
  const int64_t blocks = std::max<int64_t>(1, (adds + 63) / 64);
  uint64_t value = 0;
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ThreadCpuSeconds();
  const uint64_t tsc_start = __rdtsc();
  for (int64_t b = 0; b < blocks; ++b) {
    // 64 adds, each depending on the one before: the chain runs at one add per core cycle while
    // the loop counter's add and branch run beside it on other ALUs.
    __asm__ volatile(".rept 64\n\taddq $1, %0\n\t.endr" : "+r"(value));
  }
  const uint64_t tsc_end = __rdtsc();
  const double cpu_end = ThreadCpuSeconds();
  const auto end = std::chrono::steady_clock::now();
  ClockProbe probe;
  probe.adds = blocks * 64;
  probe.seconds = cpu_end - cpu_start;
  probe.wall_seconds = std::chrono::duration<double>(end - start).count();
  if (probe.seconds > 0 && probe.wall_seconds > 0 && value == static_cast<uint64_t>(probe.adds)) {
    probe.core_hertz = static_cast<double>(probe.adds) / probe.seconds;
    probe.tsc_hertz = static_cast<double>(tsc_end - tsc_start) / probe.wall_seconds;
  }
  return probe;
}

}  // namespace xpuperf::bench

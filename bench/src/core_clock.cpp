#include "xpuperf/bench/core_clock.h"

#include <fmt/format.h>
#include <omp.h>
#include <time.h>
#include <x86intrin.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <string_view>
#include <vector>

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

ClockProbe ClockProbeFromCounts(int64_t adds, double cpu_seconds, uint64_t tsc_ticks,
                                double wall_seconds) {
  ClockProbe probe;
  probe.adds = adds;
  probe.seconds = cpu_seconds;
  probe.wall_seconds = wall_seconds;
  if (cpu_seconds <= 0 || wall_seconds <= 0) {
    probe.problem = "the probe's interval was too short for the clocks to advance";
    return probe;
  }
  probe.tsc_hertz = static_cast<double>(tsc_ticks) / wall_seconds;
  const double hertz = static_cast<double>(adds) / cpu_seconds;
  // Adds per TSC tick is the core clock over the TSC's, whatever happened outside the chain: a
  // preemption between the steady clock's and the TSC's reads lengthens the wall interval but
  // not this ratio, and one during the chain only lowers it. Turbo clocks reach about 2x the
  // TSC's rate on desktop parts (a 3.0 GHz TSC with 6.0 GHz turbo); more than 2.5x means the
  // chain did not run at one add per cycle.
  const double adds_per_tick =
      tsc_ticks > 0 ? static_cast<double>(adds) / static_cast<double>(tsc_ticks) : 0;
  if (adds_per_tick > kMaxClockToTscRatio) {
    probe.problem = fmt::format(
        "the dependent add chain ran {:.1f} adds per TSC tick ({:.2f} G adds/s of CPU time): this "
        "core retires dependent adds faster than one per cycle, so they do not measure its clock",
        adds_per_tick, hertz / 1e9);
    return probe;
  }
  probe.core_hertz = hertz;
  return probe;
}

ClockProbe ProbeCoreClock(int64_t adds) {
  const int64_t blocks = std::max<int64_t>(1, (adds + 63) / 64);
  // The increment comes from a volatile into a register, and the chain adds register to register:
  // an immediate add ("addq $1") can be folded at rename on cores such as Intel's Golden Cove,
  // which then retire several dependent adds per cycle (seen: 15 G adds/s on a ~3 GHz core).
  volatile uint64_t one_source = 1;
  const uint64_t one = one_source;
  uint64_t value = 0;
  // The thread's CPU clock outermost (a system call, where the thread can be preempted), the
  // steady clock and the TSC innermost and next to each other, so both time the same interval.
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  const uint64_t tsc_start = __rdtsc();
  for (int64_t b = 0; b < blocks; ++b) {
    // 64 adds, each depending on the one before: the chain runs at one add per core cycle while
    // the loop counter's add and branch run beside it on other ALUs.
    __asm__ volatile(".rept 64\n\taddq %1, %0\n\t.endr" : "+r"(value) : "r"(one));
  }
  const uint64_t tsc_end = __rdtsc();
  const auto end = std::chrono::steady_clock::now();
  const double cpu_end = ThreadCpuSeconds();
  const int64_t done = blocks * 64;
  if (value != static_cast<uint64_t>(done) * one) {
    ClockProbe probe;
    probe.adds = done;
    probe.problem = "the dependent add chain's sum is wrong";
    return probe;
  }
  return ClockProbeFromCounts(done, cpu_end - cpu_start, tsc_end - tsc_start,
                              std::chrono::duration<double>(end - start).count());
}

ClockFigure MeasureClockAfter(int threads, const std::string& after, int probes, int64_t adds) {
  threads = std::max(threads, 1);
  probes = std::max(probes, 1);
  const auto per_thread = static_cast<size_t>(probes);
  std::vector<ClockProbe> results(static_cast<size_t>(threads) * per_thread);
#pragma omp parallel num_threads(threads)
  {
    const auto thread = static_cast<size_t>(omp_get_thread_num());
    for (size_t p = 0; p < per_thread; ++p) results[thread * per_thread + p] = ProbeCoreClock(adds);
  }
  std::vector<double> hertz;
  for (const ClockProbe& probe : results) {
    if (probe.core_hertz > 0) hertz.push_back(probe.core_hertz);
  }
  if (hertz.empty()) {
    for (const ClockProbe& probe : results) {
      if (!probe.problem.empty()) return {0, "not measured: " + probe.problem};
    }
    return {};
  }
  std::sort(hertz.begin(), hertz.end());
  return {hertz[hertz.size() / 2],
          fmt::format("measured: median of {} dependent-add probes ({} adds each, 1 per cycle) on "
                      "{} threads, right after {}",
                      hertz.size(), adds, threads, after)};
}

}  // namespace xpuperf::bench

// The reader benchmarks' common loop (json_read_only, xplane_read_only): reads FILE into memory
// once, then parses it RUNS times and prints one line per run and the medians: wall seconds, CPU
// seconds of the process (user + system: the figure that stays meaningful when other processes
// share the cores) and MB/s of each (1 MB = 1e6 bytes).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <vector>

#include "xpuperf/core/input_file.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace::tools {

// `parse(bytes, path)` -> Result<Trace>. Returns the process's exit status.
template <typename Parse>
int TimeReads(int argc, char** argv, const char* file_kind, Parse parse) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s %s [RUNS]\n", argv[0], file_kind);
    return 2;
  }
  const char* path = argv[1];
  const int runs = argc == 3 ? std::max(1, std::atoi(argv[2])) : 5;
  auto bytes = ReadInputFile(path, uint64_t{8} << 30);
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s\n", bytes.error().message.c_str());
    return 1;
  }
  auto cpu_now = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  };
  std::vector<double> seconds, cpu_seconds;
  size_t events = 0;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_now();
    auto trace = parse(std::string_view(*bytes), path);
    const double cpu_end = cpu_now();
    const auto end = std::chrono::steady_clock::now();
    if (!trace.ok()) {
      std::fprintf(stderr, "%s\n", trace.error().message.c_str());
      return 1;
    }
    events = trace->events.size();
    seconds.push_back(std::chrono::duration<double>(end - start).count());
    cpu_seconds.push_back(cpu_end - cpu_start);
    std::printf("run=%d seconds=%.6f cpu_seconds=%.6f events=%zu\n", i, seconds.back(),
                cpu_seconds.back(), events);
  }
  std::sort(seconds.begin(), seconds.end());
  std::sort(cpu_seconds.begin(), cpu_seconds.end());
  const double median = seconds[seconds.size() / 2], cpu = cpu_seconds[cpu_seconds.size() / 2];
  const double mb = static_cast<double>(bytes->size()) / 1e6;
  std::printf(
      "median seconds=%.6f mb_per_s=%.1f cpu_seconds=%.6f cpu_mb_per_s=%.1f bytes=%zu events=%zu "
      "runs=%d\n",
      median, mb / median, cpu, mb / cpu, bytes->size(), events, runs);
  return 0;
}

}  // namespace xpuperf::trace::tools

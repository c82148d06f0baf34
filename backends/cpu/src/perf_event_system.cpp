// PerfEventApi::System(): the perf_event_open(2) system call and read(2) of its counters.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "xpuperf/cpu/simd_utilization.h"

namespace xpuperf::cpu {
namespace {

// With more events than PMU counters the kernel time-multiplexes them; these two times let a
// reader scale the count seen while running to the whole enabled span.
constexpr uint64_t kReadFormat = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

class SystemPerfEventApi final : public PerfEventApi {
 public:
  int OpenRawCounter(uint64_t config, int cpu) override {
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_RAW;
    attr.config = config;
    attr.read_format = kReadFormat;
    attr.disabled = 0;  // count from the moment it is opened
    // pid -1 with a cpu: every task on that CPU (needs perf_event_paranoid <= 0 or CAP_PERFMON).
    const long fd =
        syscall(SYS_perf_event_open, &attr, /*pid=*/-1, cpu, /*group_fd=*/-1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : static_cast<int>(fd);
  }

  bool ReadCounter(int fd, uint64_t* value) override {
    // Layout for kReadFormat without PERF_FORMAT_GROUP: value, time_enabled, time_running (ns).
    uint64_t data[3] = {};
    ssize_t n = 0;
    do {
      n = read(fd, data, sizeof(data));
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof(data))) return false;
    const uint64_t count = data[0];
    const uint64_t enabled = data[1];
    const uint64_t running = data[2];
    if (running == 0 || running >= enabled) {
      // Not scheduled on the PMU yet (nothing seen), or never multiplexed (exact).
      *value = running == 0 ? 0 : count;
      return true;
    }
    const long double scaled = static_cast<long double>(count) * enabled / running;
    *value =
        scaled >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(scaled);
    return true;
  }

  void Close(int fd) override { close(fd); }
};

}  // namespace

PerfEventApi& PerfEventApi::System() {
  static SystemPerfEventApi api;
  return api;
}

}  // namespace xpuperf::cpu

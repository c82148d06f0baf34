// SIMD utilisation from FP counters opened through PerfEventApi on every logical CPU.
#include "xpuperf/cpu/simd_utilization.h"

#include <cerrno>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

// One event on one CPU, with the count at the previous sample.
struct OpenCounter {
  int cpu = 0;
  size_t event = 0;  // index into FpCounterPlan::events
  int fd = -1;
  uint64_t last = 0;
};

void CloseAll(PerfEventApi& api, const std::vector<OpenCounter>& counters) {
  for (const OpenCounter& counter : counters) api.Close(counter.fd);
}

std::string PerfEventParanoid(const std::string& root) {
  auto value = ReadTrimmedFile(JoinRoot(root, "/proc/sys/kernel/perf_event_paranoid"));
  return value.ok() ? *value : "unknown";
}

Error OpenFailure(const std::string& root, const FpCounterEvent& event, int cpu, int error_number) {
  std::string reason = "unsupported: perf_event_open(" + event.name + ") failed on cpu " +
                       std::to_string(cpu) + ": " + std::generic_category().message(error_number) +
                       " (perf_event_paranoid=" + PerfEventParanoid(root);
  if (error_number == EACCES || error_number == EPERM) {
    reason += "; counting every CPU needs perf_event_paranoid <= 0 or CAP_PERFMON";
  }
  return MakeError(ErrorCode::kUnsupported, reason + ")");
}

class PerfSimdUtilization final : public SimdUtilization {
 public:
  PerfSimdUtilization(FpCounterPlan plan, PerfEventApi& api, std::vector<OpenCounter> counters)
      : plan_(std::move(plan)), api_(api), counters_(std::move(counters)) {}
  ~PerfSimdUtilization() override { CloseAll(api_, counters_); }
  PerfSimdUtilization(const PerfSimdUtilization&) = delete;
  PerfSimdUtilization& operator=(const PerfSimdUtilization&) = delete;

  Result<std::vector<double>> SamplePercent(double elapsed_seconds) override {
    if (!(elapsed_seconds > 0) || !std::isfinite(elapsed_seconds)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "elapsed time must be a positive number of seconds, got " +
                           std::to_string(elapsed_seconds));
    }
    // Read everything first so a failure leaves every baseline where it was.
    std::vector<uint64_t> now(counters_.size());
    for (size_t i = 0; i < counters_.size(); ++i) {
      if (!api_.ReadCounter(counters_[i].fd, &now[i])) {
        return MakeError(ErrorCode::kIo, "reading FP counter " +
                                             plan_.events[counters_[i].event].name + " on cpu " +
                                             std::to_string(counters_[i].cpu) + " failed");
      }
    }
    // plan_.cpus is sorted and non-empty; offline CPU numbers in between stay NaN (not measured).
    std::vector<double> percent(static_cast<size_t>(plan_.cpus.back()) + 1,
                                std::numeric_limits<double>::quiet_NaN());
    for (int cpu : plan_.cpus) percent[static_cast<size_t>(cpu)] = 0.0;
    const double peak_flops = plan_.peak_fp32_flops_per_second * elapsed_seconds;
    for (size_t i = 0; i < counters_.size(); ++i) {
      OpenCounter& counter = counters_[i];
      // Multiplexing estimates (count x enabled / running) can step back slightly; no FLOPs then.
      const uint64_t delta = now[i] > counter.last ? now[i] - counter.last : 0;
      const double flops =
          static_cast<double>(delta) * plan_.events[counter.event].fp32_flops_per_count;
      percent[static_cast<size_t>(counter.cpu)] += flops / peak_flops * 100.0;
      counter.last = now[i];
    }
    return percent;
  }

  std::string peak_description() const override { return plan_.peak_description; }

 private:
  FpCounterPlan plan_;
  PerfEventApi& api_;
  std::vector<OpenCounter> counters_;
};

}  // namespace

Result<std::unique_ptr<SimdUtilization>> SimdUtilization::Open(const std::string& root,
                                                               PerfEventApi& api) {
  XPUPERF_ASSIGN_OR_RETURN(FpCounterPlan plan, PlanFpCounters(root));
  if (plan.cpus.empty() || plan.cpus.front() < 0) {
    return MakeError(ErrorCode::kInternal, "no logical CPUs to count FP operations on");
  }
  std::vector<OpenCounter> counters;
  counters.reserve(plan.cpus.size() * plan.events.size());
  for (int cpu : plan.cpus) {
    for (size_t event = 0; event < plan.events.size(); ++event) {
      const int fd = api.OpenRawCounter(plan.events[event].config, cpu);
      if (fd < 0) {
        CloseAll(api, counters);
        return OpenFailure(root, plan.events[event], cpu, -fd);
      }
      counters.push_back(OpenCounter{cpu, event, fd, 0});
      // The baseline: the first SamplePercent counts from here.
      if (!api.ReadCounter(fd, &counters.back().last)) {
        CloseAll(api, counters);
        return MakeError(ErrorCode::kIo, "reading FP counter " + plan.events[event].name +
                                             " on cpu " + std::to_string(cpu) +
                                             " failed right after opening it");
      }
    }
  }
  return std::unique_ptr<SimdUtilization>(
      new PerfSimdUtilization(std::move(plan), api, std::move(counters)));
}

}  // namespace xpuperf::cpu

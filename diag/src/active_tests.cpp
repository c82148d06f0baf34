// Levels 2 and 3: the memory pattern test, the performance gate and the stress under watch.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "diag_test.h"
#include "xpuperf/analysis/bench_check_command.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/bench_commands/bench_command.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/cuda_bench/device_tests.h"
#include "xpuperf/diag/memory_pattern.h"

namespace xpuperf::diag {
namespace {

using health::Status;

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The outcome of a pattern test (host: PatternResult, device: DeviceMemoryTestResult).
template <typename PatternOutcome>
DiagTest PatternTestOf(const std::string& test, const std::string& device,
                       const Result<PatternOutcome>& result, int passes, double seconds) {
  DiagTest t{test, device, Status::kPass, "OK", "", seconds};
  if (!result.ok()) {
    const bool unsupported = result.error().code == ErrorCode::kUnsupported;
    t.status = CancellationRequested() || unsupported ? Status::kUnknown : Status::kFail;
    t.code = CancellationRequested() ? "INTERRUPTED"
             : unsupported           ? "UNKNOWN"
                                     : "DIAG_MEMORY_UNAVAILABLE";
    t.evidence = result.error().message;
  } else if (result->errors > 0) {
    t.status = Status::kFail;
    t.code = "DIAG_MEMORY_PATTERN_MISMATCH";
    t.evidence = fmt::format("{} of {} words read back wrong; first: {}", result->errors,
                             result->words_checked, result->first_error);
  } else {
    t.evidence = fmt::format(
        "{} MiB, {} patterns x {} pass(es), {} words verified, {:.1f} GB/s", result->bytes >> 20,
        result->patterns / std::max(passes, 1), passes, result->words_checked,
        result->seconds > 0
            ? 2.0 * static_cast<double>(result->bytes) * result->patterns / result->seconds / 1e9
            : 0.0);
  }
  return t;
}

DiagTest PatternTest(const std::string& test, const std::string& device, uint64_t bytes,
                     int passes) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = RunMemoryPatterns(bytes, passes);
  return PatternTestOf(test, device, result, passes, Since(start));
}

// A CUDA device's memory: the same patterns written and verified by kernels.
DiagTest DevicePatternTest(const Device& d, uint64_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  cuda_bench::DeviceMemoryTestOptions options;
  options.bytes = bytes;
  const auto result = cuda_bench::RunDeviceMemoryTest(d.bus_id, options);
  return PatternTestOf("memory_pattern", d.id, result, options.passes, Since(start));
}

// "peak_fma chains=12 clock={…} … (results.jsonl line 3); …" → "peak_fma, results.jsonl line 3".
std::string ShortSource(const std::string& measured_from) {
  std::string benchmark = measured_from.substr(0, measured_from.find(' '));
  const size_t line = measured_from.find("results.jsonl line ");
  if (line == std::string::npos) return benchmark;
  const size_t end = measured_from.find(')', line);
  return benchmark + ", " + measured_from.substr(line, end - line);
}

}  // namespace

std::vector<DiagTest> MemoryPatternTests(const std::vector<Device>& devices,
                                         const DiagOptions& options) {
  std::vector<DiagTest> tests;
  for (const Device& d : devices) {
    if (d.is_partition()) continue;
    if (d.backend == "cpu") {
      tests.push_back(PatternTest("memory_pattern", d.id, options.memory_mib << 20, 1));
    } else if (d.backend == "nvidia") {
      tests.push_back(DevicePatternTest(d, options.memory_mib << 20));
    } else {
      tests.push_back(DiagTest{"memory_pattern", d.id, Status::kUnknown, "UNKNOWN",
                               "unsupported: the device-memory pattern test runs on CUDA devices; "
                               "this device's memory is judged by its ECC/RAS counters "
                               "(health.memory)",
                               0});
    }
  }
  return tests;
}

std::vector<DiagTest> PerformanceTests(const DiagOptions& options, const std::string& dir,
                                       std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<DiagTest> tests;
  bench_commands::BenchOptions bench;
  bench.suite = "quick";
  bench.only = {"compute", "memory"};
  bench.out = dir + "/bench";
  // The benchmarks' progress goes to err as `bench run` shows it; their summary table is not
  // the diagnostic's output.
  std::ostringstream bench_out;
  const int code = bench_commands::RunBench(bench, bench_out, err);
  if (code != 0) {
    tests.push_back(DiagTest{"performance", "node",
                             CancellationRequested() ? Status::kUnknown : Status::kFail,
                             CancellationRequested() ? "INTERRUPTED" : "PERF_BENCH_FAILED",
                             fmt::format("bench run of the quick suite exited {} (its error is "
                                         "above)",
                                         code),
                             Since(start)});
    return tests;
  }
  err << "xpuperf diag: benchmarks written to " << bench.out << "\n";
  auto run = bench::ReadResultDirectory(bench.out);
  if (!run.ok()) {
    tests.push_back(DiagTest{"performance", "node", Status::kFail, "PERF_BENCH_FAILED",
                             run.error().message, Since(start)});
    return tests;
  }
  auto sheet = analysis::ResolveSpecSheet(*run, "auto", options.common.root);
  if (!sheet.ok()) {
    tests.push_back(DiagTest{"performance", "node", Status::kUnknown, "PERF_NO_SPEC",
                             sheet.error().message, Since(start)});
    return tests;
  }
  const analysis::CheckReport report = analysis::CheckAgainstSpec(*run, *sheet);
  for (const analysis::CheckRow& row : report.rows) {
    if (row.component != "compute" && row.component != "memory") continue;
    // "performance.compute.fp64", "performance.memory.triad": one test per row of the check.
    const std::string metric = row.metric.substr(0, row.metric.find(' '));
    DiagTest t{
        "performance." + row.component + "." + metric, "cpu0", Status::kUnknown, "UNKNOWN", "", 0};
    const std::string from = ShortSource(row.measured_from);
    switch (row.verdict) {
      case analysis::CheckVerdict::kPass:
      case analysis::CheckVerdict::kFail: {
        const bool pass = row.verdict == analysis::CheckVerdict::kPass;
        t.status = pass ? Status::kPass : Status::kFail;
        t.code = pass ? "OK" : "PERF_BELOW_SPEC";
        t.evidence = fmt::format("{}: {:.1f}% of the spec sheet (threshold {:g}%; {})", row.metric,
                                 row.achieved_percent.value_or(0), row.threshold_percent, from);
        break;
      }
      case analysis::CheckVerdict::kUnstable:
        t.code = "PERF_UNSTABLE";
        t.evidence = fmt::format("{}: not judged, the figure is unstable ({})", row.metric,
                                 row.measured_from.substr(row.measured_from.find("unstable")));
        break;
      case analysis::CheckVerdict::kNoSpec:
      case analysis::CheckVerdict::kNotMeasured:
        t.code = "PERF_NOT_JUDGED";
        t.evidence =
            fmt::format("{}: {} ({})", row.metric, analysis::CheckVerdictName(row.verdict),
                        row.verdict == analysis::CheckVerdict::kNoSpec ? from : row.spec_from);
        break;
    }
    tests.push_back(std::move(t));
  }
  for (DiagTest& t : tests) t.seconds = Since(start);
  return tests;
}

namespace {

struct Watch {
  int samples = 0;
  std::map<std::string, double> first_errors;   // device|type → the count at the start
  std::map<std::string, double> new_errors;     // device|type → the increase since
  std::map<std::string, std::string> slowdown;  // device → reasons seen active
  std::map<std::string, double> hottest;        // device → °C
};

void Observe(const std::vector<Reading>& readings, Watch& watch) {
  ++watch.samples;
  for (const Reading& r : readings) {
    if (r.state != ReadingState::kOk) continue;
    for (const Sample& s : r.samples) {
      if (s.is_distribution()) continue;
      if (r.metric == metrics::kErrors) {
        const std::string key = r.device + " " + std::string(s.labels.Get(labels::kType));
        auto [it, fresh] = watch.first_errors.emplace(key, s.scalar());
        if (!fresh && s.scalar() > it->second) watch.new_errors[key] = s.scalar() - it->second;
      } else if (r.metric == metrics::kClockEventActive && s.scalar() > 0) {
        const std::string reason(s.labels.Get(labels::kReason));
        if (reason.find("thermal") != std::string::npos || reason == "hw_slowdown" ||
            reason == "hw_power_brake_slowdown") {
          std::string& seen = watch.slowdown[r.device];
          if (seen.find(reason) == std::string::npos) seen += (seen.empty() ? "" : ", ") + reason;
        }
      } else if (r.metric == metrics::kTemperature) {
        auto [it, fresh] = watch.hottest.emplace(r.device, s.scalar());
        if (!fresh) it->second = std::max(it->second, s.scalar());
      }
    }
  }
}

// A compute load whose result is checked: the same multiply-add chain on every thread must give
// the same value.
double ComputeChain(uint64_t iterations) {
  double x = 1.0;
  for (uint64_t i = 0; i < iterations; ++i) x = x * 0.999999999 + 1e-9;
  return x;
}

DiagTest DeviceStressTest(const Device& d, const Result<cuda_bench::DeviceStressResult>& result,
                          double seconds) {
  if (!result.ok()) {
    const bool unsupported = result.error().code == ErrorCode::kUnsupported;
    return DiagTest{"stress.device",
                    d.id,
                    unsupported ? Status::kUnknown : Status::kFail,
                    unsupported ? "UNKNOWN" : "STRESS_DEVICE_FAILED",
                    unsupported ? result.error().message + "; the device was watched, not loaded"
                                : result.error().message,
                    seconds};
  }
  if (result->compute_mismatches > 0 || result->memory_errors > 0) {
    return DiagTest{"stress.device",
                    d.id,
                    Status::kFail,
                    "STRESS_DEVICE_ERRORS",
                    fmt::format("{} FMA results and {} memory words wrong over {} rounds "
                                "(first: {})",
                                result->compute_mismatches, result->memory_errors, result->rounds,
                                result->first_error),
                    seconds};
  }
  return DiagTest{"stress.device",
                  d.id,
                  Status::kPass,
                  "OK",
                  fmt::format("{} rounds of verified fp32 FMA chains on every SM and a random "
                              "pattern over device memory in {:.0f} s",
                              result->rounds, result->seconds),
                  seconds};
}

}  // namespace

std::vector<DiagTest> StressTests(Session& session, const DiagOptions& options, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  err << fmt::format("xpuperf diag: stressing host memory and compute on {} threads for {:g} s\n",
                     threads, options.duration_seconds);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> pattern_errors{0}, pattern_rounds{0}, compute_mismatches{0};
  std::string first_error;
  std::mutex first_error_mutex;
  const double reference = ComputeChain(1 << 20);
  std::vector<std::thread> workers;
  const uint64_t chunk = std::max<uint64_t>((options.memory_mib << 20) / threads, 1 << 20);
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      while (!stop.load()) {
        if (t % 2 == 0) {
          auto result = RunMemoryPatterns(chunk, 1, t + 1);
          if (!result.ok()) break;
          pattern_rounds.fetch_add(1);
          if (result->errors > 0) {
            pattern_errors.fetch_add(result->errors);
            std::lock_guard lock(first_error_mutex);
            if (first_error.empty()) first_error = result->first_error;
          }
        } else if (ComputeChain(1 << 20) != reference) {
          compute_mismatches.fetch_add(1);
        }
      }
    });
  }
  // Each CUDA device under its own verified load, on a thread of its own.
  std::vector<const Device*> gpus;
  for (const Device& d : session.devices())
    if (d.backend == "nvidia" && !d.is_partition()) gpus.push_back(&d);
  std::vector<std::optional<Result<cuda_bench::DeviceStressResult>>> gpu_results(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) {
    workers.emplace_back([&, i] {
      gpu_results[i] = cuda_bench::RunDeviceStress(gpus[i]->bus_id, options.memory_mib << 20, stop);
    });
  }
  Watch watch;
  double next_report = 10;
  while (Since(start) < options.duration_seconds && SleepUnlessCancelled(1.0)) {
    if (auto readings = session.Collect({}); readings.ok()) Observe(*readings, watch);
    if (Since(start) >= next_report && Since(start) < options.duration_seconds) {
      err << fmt::format(
          "xpuperf diag: stress: {:.0f} of {:g} s, {} samples watched, about {:.0f} "
          "s left\n",
          Since(start), options.duration_seconds, watch.samples,
          options.duration_seconds - Since(start));
      next_report += 10;
    }
  }
  stop.store(true);
  for (std::thread& w : workers) w.join();
  const double seconds = Since(start);
  std::vector<DiagTest> tests;
  if (CancellationRequested()) {
    tests.push_back(DiagTest{"stress", "node", Status::kUnknown, "INTERRUPTED",
                             fmt::format("stopped after {:.1f} s", seconds), seconds});
    return tests;
  }
  tests.push_back(
      pattern_errors.load() > 0 || compute_mismatches.load() > 0
          ? DiagTest{"stress.host", "cpu0", Status::kFail, "STRESS_HOST_ERRORS",
                     fmt::format("{} memory words wrong (first: {}), {} compute results wrong",
                                 pattern_errors.load(), first_error, compute_mismatches.load()),
                     seconds}
          : DiagTest{"stress.host", "cpu0", Status::kPass, "OK",
                     fmt::format("{} memory pattern rounds of {} MiB and every compute chain "
                                 "verified in {:.0f} s",
                                 pattern_rounds.load(), chunk >> 20, seconds),
                     seconds});
  std::string errors;
  for (const auto& [key, increase] : watch.new_errors)
    errors += fmt::format("{}{} +{:g}", errors.empty() ? "" : ", ", key, increase);
  tests.push_back(errors.empty()
                      ? DiagTest{"stress.error_counters", "node", Status::kPass, "OK",
                                 fmt::format("no error counter rose over {} samples ({} counters "
                                             "watched)",
                                             watch.samples, watch.first_errors.size()),
                                 seconds}
                      : DiagTest{"stress.error_counters", "node", Status::kFail,
                                 "STRESS_NEW_ERRORS", errors, seconds});
  for (const Device& d : session.devices()) {
    if (d.is_partition()) continue;
    auto slow = watch.slowdown.find(d.id);
    auto hot = watch.hottest.find(d.id);
    const std::string temperature = hot == watch.hottest.end()
                                        ? "no temperature read"
                                        : fmt::format("hottest {:.0f} °C", hot->second);
    tests.push_back(
        slow == watch.slowdown.end()
            ? DiagTest{"stress.throttle", d.id, Status::kPass, "OK",
                       "no thermal slowdown or power brake seen; " + temperature, seconds}
            : DiagTest{"stress.throttle", d.id, Status::kFail, "STRESS_THROTTLED",
                       "seen under load: " + slow->second + "; " + temperature, seconds});
    if (d.backend != "cpu" && d.backend != "nvidia") {
      tests.push_back(DiagTest{"stress.device", d.id, Status::kUnknown, "UNKNOWN",
                               "unsupported: the device load runs on CUDA devices; this device was "
                               "watched, not loaded",
                               seconds});
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i)
    tests.push_back(DeviceStressTest(*gpus[i], *gpu_results[i], seconds));
  return tests;
}

}  // namespace xpuperf::diag

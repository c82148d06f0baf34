#include "xpuperf/record/patterns.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::record {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kIdleDutyPercent = 5;
constexpr double kNearOomShare = 0.95;
constexpr double kLowUtilPercent = 50;

double MedianStep(const std::vector<Point>& points) {
  if (points.size() < 2) return 0;
  std::vector<double> steps;
  steps.reserve(points.size() - 1);
  for (size_t i = 1; i < points.size(); ++i) steps.push_back(points[i].t_s - points[i - 1].t_s);
  std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
  return steps[steps.size() / 2];
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto low = static_cast<size_t>(std::floor(rank));
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (rank - static_cast<double>(low));
}

std::string PhaseList(const std::vector<Phase>& phases, std::string_view unit, size_t limit = 3) {
  std::vector<Phase> sorted = phases;
  std::sort(sorted.begin(), sorted.end(), [](const Phase& a, const Phase& b) {
    return a.end_s - a.start_s > b.end_s - b.start_s;
  });
  std::string out;
  for (size_t i = 0; i < std::min(limit, sorted.size()); ++i) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{:.1f}-{:.1f} s ({:.1f} s", sorted[i].start_s, sorted[i].end_s,
                       sorted[i].end_s - sorted[i].start_s);
    if (!unit.empty()) out += fmt::format(", mean {:.1f} {}", sorted[i].mean, unit);
    out += ")";
  }
  return out;
}

double TotalSeconds(const std::vector<Phase>& phases) {
  double total = 0;
  for (const Phase& p : phases) total += p.end_s - p.start_s;
  return total;
}

bool IsAccelerator(std::string_view device) { return !device.starts_with("cpu"); }

}  // namespace

std::vector<Phase> PhasesBelow(const std::vector<Point>& points, double threshold,
                               double min_seconds) {
  std::vector<Phase> phases;
  const double step = MedianStep(points);
  size_t i = 0;
  while (i < points.size()) {
    if (points[i].value >= threshold) {
      ++i;
      continue;
    }
    size_t j = i;
    double sum = 0;
    while (j < points.size() && points[j].value < threshold) sum += points[j++].value;
    // A sample covers the interval since the previous one: the phase starts one step before its
    // first sample (or at 0) and ends at its last sample.
    const double start = i > 0 ? points[i - 1].t_s : std::max(0.0, points[i].t_s - step);
    const double end = points[j - 1].t_s;
    if (end - start >= min_seconds) {
      phases.push_back({start, end, sum / static_cast<double>(j - i)});
    }
    i = j;
  }
  return phases;
}

std::vector<Phase> ActivePhases(const std::vector<Point>& points) {
  std::vector<Point> inverted = points;
  for (Point& p : inverted) p.value = p.value > 0.5 ? 0 : 1;
  std::vector<Phase> phases = PhasesBelow(inverted, 0.5, 0);
  for (Phase& p : phases) p.mean = 1;
  return phases;
}

std::optional<MemoryGrowth> FitMemoryGrowth(const std::vector<Point>& points,
                                            double min_growth_bytes) {
  if (points.size() < 10) return std::nullopt;
  const double t0 = points.front().t_s;
  const double span = points.back().t_s - t0;
  if (span <= 0) return std::nullopt;
  // Bucket means over 1/50 of the span smooth sampling noise and make the fit cost independent of
  // the rate.
  constexpr int kBuckets = 50;
  std::vector<Point> buckets;
  {
    std::vector<double> sum(kBuckets, 0), t(kBuckets, 0);
    std::vector<int> n(kBuckets, 0);
    for (const Point& p : points) {
      const int b = std::min(kBuckets - 1, static_cast<int>((p.t_s - t0) / span * kBuckets));
      sum[b] += p.value;
      t[b] += p.t_s;
      ++n[b];
    }
    for (int b = 0; b < kBuckets; ++b) {
      if (n[b] > 0) buckets.push_back({t[b] / n[b], sum[b] / n[b]});
    }
  }
  if (buckets.size() < 5) return std::nullopt;
  // A hinge: flat (its mean) before the start, a line after it. Among the starts whose line
  // qualifies, the one with the least squared error over the whole signal.
  std::optional<MemoryGrowth> best;
  double best_cost = 0;
  for (size_t start = 0; start + 5 <= buckets.size(); ++start) {
    if (buckets.back().t_s - buckets[start].t_s < 0.3 * span) break;
    const size_t n = buckets.size() - start;
    double mt = 0, mv = 0;
    for (size_t i = start; i < buckets.size(); ++i) {
      mt += buckets[i].t_s;
      mv += buckets[i].value;
    }
    mt /= static_cast<double>(n);
    mv /= static_cast<double>(n);
    double stt = 0, stv = 0, svv = 0;
    int rising = 0;
    for (size_t i = start; i < buckets.size(); ++i) {
      stt += (buckets[i].t_s - mt) * (buckets[i].t_s - mt);
      stv += (buckets[i].t_s - mt) * (buckets[i].value - mv);
      svv += (buckets[i].value - mv) * (buckets[i].value - mv);
      if (i > start && buckets[i].value > buckets[i - 1].value) ++rising;
    }
    if (stt <= 0 || svv <= 0) continue;
    const double slope = stv / stt;
    const double r2 = stv * stv / (stt * svv);
    const double rising_share = static_cast<double>(rising) / static_cast<double>(n - 1);
    const double growth = slope * (buckets.back().t_s - buckets[start].t_s);
    const double needed = std::max(min_growth_bytes, 0.05 * std::abs(buckets[start].value));
    if (!(slope > 0 && r2 >= 0.8 && rising_share >= 0.7 && growth >= needed)) continue;
    double prefix_mean = 0;
    for (size_t i = 0; i < start; ++i) prefix_mean += buckets[i].value;
    if (start > 0) prefix_mean /= static_cast<double>(start);
    double cost = svv * (1 - r2);  // the line's residual sum of squares
    for (size_t i = 0; i < start; ++i) {
      cost += (buckets[i].value - prefix_mean) * (buckets[i].value - prefix_mean);
    }
    if (!best || cost < best_cost) {
      best = MemoryGrowth{slope, buckets[start].t_s, growth, r2, rising_share};
      best_cost = cost;
    }
  }
  return best;
}

std::optional<StepPeriod> FindStepPeriod(const std::vector<Point>& points) {
  const size_t n = points.size();
  if (n < 12) return std::nullopt;
  const double step = MedianStep(points);
  if (step <= 0) return std::nullopt;
  double mean = 0;
  for (const Point& p : points) mean += p.value;
  mean /= static_cast<double>(n);
  double variance = 0;
  for (const Point& p : points) variance += (p.value - mean) * (p.value - mean);
  if (variance <= 1e-9 * static_cast<double>(n)) return std::nullopt;
  const size_t max_lag = n / 3;
  std::vector<double> r(max_lag + 2, 0);
  for (size_t lag = 1; lag <= max_lag + 1 && lag < n; ++lag) {
    double c = 0;
    for (size_t i = 0; i + lag < n; ++i)
      c += (points[i].value - mean) * (points[i + lag].value - mean);
    r[lag] = c / variance;
  }
  double best = 0;
  std::vector<size_t> peaks;
  for (size_t lag = 2; lag <= max_lag; ++lag) {
    if (r[lag] >= 0.3 && r[lag] >= r[lag - 1] && r[lag] > r[lag + 1]) {
      peaks.push_back(lag);
      best = std::max(best, r[lag]);
    }
  }
  for (size_t lag : peaks) {
    if (r[lag] < 0.9 * best) continue;
    StepPeriod found;
    found.period_s = static_cast<double>(lag) * step;
    found.autocorrelation = r[lag];
    found.periods = static_cast<int>(static_cast<double>(n) / static_cast<double>(lag));
    if (found.periods < 3) return std::nullopt;
    return found;
  }
  return std::nullopt;
}

namespace {

struct DeviceSignals {
  int64_t duty = -1;  // overall duty-cycle series
  int64_t memory_used = -1;
  int64_t job_memory = -1;
  std::vector<uint32_t> clock_events;  // one per reason
};

void IdleAndUtilisation(const std::string& device, const std::vector<Point>& duty, double duration,
                        bool report_low_util, std::vector<Finding>& out) {
  if (duty.size() < 3) return;
  const double step = MedianStep(duty);
  const double min_phase = std::max(2.0, 5 * step);
  std::vector<Phase> idle = PhasesBelow(duty, kIdleDutyPercent, min_phase);
  const double idle_s = TotalSeconds(idle);
  if (!idle.empty() && duration > 0) {
    const double share = idle_s / duration;
    out.push_back(Finding{
        .rule = "idle_phases",
        .title = fmt::format("{} was idle (duty cycle < {:.0f}%) for {:.1f} s, {:.0f}% of the job",
                             device, kIdleDutyPercent, idle_s, 100 * share),
        .severity = share >= 0.2 ? "warning" : "info",
        .device = device,
        .value = share,
        .threshold = 0.0,
        .unit = "share of the recording",
        .start_s = idle.front().start_s,
        .end_s = idle.back().end_s,
        .evidence = fmt::format("{} idle phase(s) of ≥ {:.1f} s; longest: {}", idle.size(),
                                min_phase, PhaseList(idle, "%")),
        .advice = "Idle stretches are start-up, data loading, checkpointing or waiting on other "
                  "ranks: overlap input with compute (more DataLoader workers, prefetch), "
                  "checkpoint asynchronously, and line the phases up with a profiler trace "
                  "(`xpuperf analyze TRACE --telemetry DIR`).",
    });
  }
  if (!report_low_util) return;
  std::vector<double> busy;
  for (const Point& p : duty) {
    if (p.value >= kIdleDutyPercent) busy.push_back(p.value);
  }
  if (busy.size() < 10) return;
  const double median = Percentile(busy, 0.5);
  const double p95 = Percentile(busy, 0.95);
  if (median < kLowUtilPercent) {
    out.push_back(Finding{
        .rule = "low_utilization",
        .title =
            fmt::format("{} ran at a low steady duty cycle: median {:.0f}% outside idle phases",
                        device, median),
        .severity = median < 25 ? "warning" : "info",
        .device = device,
        .value = median,
        .threshold = kLowUtilPercent,
        .unit = "percent",
        .evidence =
            fmt::format("{} busy samples: median {:.1f}%, p95 {:.1f}%", busy.size(), median, p95),
        .advice = "The device waits for work most of the time: larger batches, fewer host "
                  "synchronisations, more input workers, or CUDA graphs / jit to cut launch "
                  "overhead; the trace's launch and idle analyses say which.",
    });
  }
}

void Throttling(const SeriesTable& table, const TimelineAccumulator& stats,
                const std::vector<uint32_t>& reasons, double duration, std::vector<Finding>& out) {
  struct Kind {
    std::string rule;
    std::vector<std::string_view> reasons;
    std::string what;
    std::string advice;
  };
  const Kind kinds[] = {
      {"power_capped",
       {"sw_power_cap", "hw_power_brake_slowdown"},
       "power-capped",
       "Clocks were held down to stay under the power limit: check the limit "
       "(nvidia-smi -q -d POWER), the supply and the rack's power budget; if it is set low on "
       "purpose, the J/step in `analyze --telemetry` says whether the trade is worth it."},
      {"thermal_throttled",
       {"sw_thermal_slowdown", "hw_thermal_slowdown", "hw_slowdown"},
       "thermally throttled",
       "Clocks were held down by temperature (or an external slowdown signal): check airflow, "
       "fan curves, inlet temperature and the peak temperatures in the summary."},
  };
  for (const Kind& kind : kinds) {
    std::map<std::string, std::vector<Phase>> per_device;
    std::map<std::string, std::string> which;
    for (uint32_t s : reasons) {
      const Series& series = table[s];
      if (std::find(kind.reasons.begin(), kind.reasons.end(), series.detail) == kind.reasons.end())
        continue;
      std::vector<Phase> phases = ActivePhases(stats.points(s));
      if (phases.empty()) continue;
      auto& list = per_device[series.device];
      list.insert(list.end(), phases.begin(), phases.end());
      which[series.device] += (which[series.device].empty() ? "" : ", ") + series.detail;
    }
    for (auto& [device, phases] : per_device) {
      std::sort(phases.begin(), phases.end(),
                [](const Phase& a, const Phase& b) { return a.start_s < b.start_s; });
      const double seconds = TotalSeconds(phases);
      out.push_back(Finding{
          .rule = kind.rule,
          .title = fmt::format("{} was {} for {:.1f} s ({:.0f}% of the job)", device, kind.what,
                               seconds, duration > 0 ? 100 * seconds / duration : 0),
          .severity = duration > 0 && seconds / duration >= 0.1 ? "warning" : "info",
          .device = device,
          .value = seconds,
          .threshold = 0,
          .unit = "seconds",
          .start_s = phases.front().start_s,
          .end_s = phases.back().end_s,
          .evidence = fmt::format("reasons {}; {} phase(s): {}", which[device], phases.size(),
                                  PhaseList(phases, "")),
          .advice = kind.advice,
      });
    }
  }
}

void Memory(const std::string& device, const std::string& what, const std::vector<Point>& points,
            const SeriesStats& stats, uint64_t capacity, std::vector<Finding>& out) {
  if (std::optional<MemoryGrowth> growth = FitMemoryGrowth(points, 64 * kMiB)) {
    const double per_min = growth->slope_bytes_per_s * 60 / kMiB;
    out.push_back(Finding{
        .rule = "memory_growth",
        .title = fmt::format("{} {} grew steadily by {:.1f} MiB/min from {:.1f} s", device, what,
                             per_min, growth->start_s),
        .severity = "warning",
        .device = device,
        .value = per_min,
        .threshold = 0,
        .unit = "MiB/min",
        .start_s = growth->start_s,
        .end_s = points.back().t_s,
        .evidence = fmt::format("+{:.0f} MiB from {:.1f} s to the end; least-squares line R² = "
                                "{:.2f}; {:.0f}% of the 1/50-span steps rising",
                                growth->growth_bytes / kMiB, growth->start_s, growth->r2,
                                100 * growth->rising_share),
        .advice = "A leak-like slope: look for tensors kept alive across steps (losses appended "
                  "without .item(), caches, growing lists of outputs), and compare allocator "
                  "snapshots (torch.cuda.memory._snapshot) at two steps.",
    });
  }
  if (capacity > 0 && stats.count > 0) {
    const double share = stats.max / static_cast<double>(capacity);
    if (share >= kNearOomShare) {
      out.push_back(Finding{
          .rule = "near_oom",
          .title = fmt::format("{} {} peaked at {:.1f}% of its {:.1f} GiB", device, what,
                               100 * share, static_cast<double>(capacity) / (1024 * kMiB)),
          .severity = "critical",
          .device = device,
          .value = share,
          .threshold = kNearOomShare,
          .unit = "share of capacity",
          .evidence = fmt::format("peak {:.0f} MiB of {:.0f} MiB", stats.max / kMiB,
                                  static_cast<double>(capacity) / kMiB),
          .advice = "One larger batch or a fragmented allocator away from out-of-memory: reduce "
                    "the batch or sequence length, use activation checkpointing or mixed "
                    "precision, or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
      });
    }
  }
}

}  // namespace

std::vector<Finding> DetectPatterns(const PatternContext& context) {
  const SeriesTable& table = *context.table;
  const TimelineAccumulator& stats = *context.stats;
  std::vector<Finding> out;
  std::map<std::string, DeviceSignals> devices;
  for (uint32_t i = 0; i < table.size() && i < stats.series_count(); ++i) {
    const Series& s = table[i];
    DeviceSignals& d = devices[s.device];
    if (s.metric == metrics::kDutyCycle && s.labels.empty()) d.duty = i;
    if (s.metric == metrics::kMemoryUsed && s.labels.empty()) d.memory_used = i;
    if (s.metric == kJobMemory) d.job_memory = i;
    if (s.metric == metrics::kClockEventActive) d.clock_events.push_back(i);
  }
  bool any_accelerator = false;
  for (const auto& [device, signals] : devices) {
    any_accelerator = any_accelerator || (IsAccelerator(device) && signals.duty >= 0);
  }
  const double duration = stats.duration_s();
  std::vector<uint32_t> reasons;
  int64_t main_duty = -1;
  for (const auto& [device, d] : devices) {
    if (d.duty >= 0) {
      const bool main = IsAccelerator(device) || !any_accelerator;
      IdleAndUtilisation(device, stats.points(d.duty), duration, main, out);
      if (main && main_duty < 0) main_duty = d.duty;
    }
    reasons.insert(reasons.end(), d.clock_events.begin(), d.clock_events.end());
    auto capacity = context.capacity_bytes.find(device);
    const uint64_t cap = capacity == context.capacity_bytes.end() ? 0 : capacity->second;
    if (d.memory_used >= 0) {
      Memory(device, "memory in use", stats.points(d.memory_used), stats.stats(d.memory_used), cap,
             out);
    }
    if (d.job_memory >= 0) {
      Memory(device, IsAccelerator(device) ? "memory held by the job" : "job RSS",
             stats.points(d.job_memory), stats.stats(d.job_memory), cap, out);
    }
  }
  Throttling(table, stats, reasons, duration, out);
  if (main_duty >= 0) {
    const std::vector<Point>& duty = stats.points(static_cast<uint32_t>(main_duty));
    if (std::optional<StepPeriod> period = FindStepPeriod(duty)) {
      const double step = MedianStep(duty);
      out.push_back(Finding{
          .rule = "step_period",
          .title = fmt::format("{} repeats every {:.3g} s (the step period of its duty cycle)",
                               table[static_cast<uint32_t>(main_duty)].device, period->period_s),
          .severity = "info",
          .device = table[static_cast<uint32_t>(main_duty)].device,
          .value = period->period_s,
          .threshold = 0,
          .unit = "seconds",
          .evidence = fmt::format("autocorrelation {:.2f} at that lag; {} periods in the "
                                  "recording; sampled every {:.3g} s",
                                  period->autocorrelation, period->periods, step),
          .advice = "Steps shorter than two sample periods cannot show up here: raise --rate to "
                    "see them. Divide the energy by the step count for J/step, or align with a "
                    "trace (`analyze TRACE --telemetry DIR`) for exact per-step energy.",
      });
    }
  }
  return out;
}

}  // namespace xpuperf::record

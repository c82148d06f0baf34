#include "energy_audit.h"

#include <cmath>

#include "xpuperf/core/energy_check.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::exporter {
namespace {

// The power sample of the same device and labels as an energy sample, or nullptr.
const Sample* PowerOf(const std::vector<Reading>& readings, const std::string& device,
                      const Labels& labels) {
  for (const Reading& r : readings) {
    if (r.metric != metrics::kPower || r.device != device || r.state != ReadingState::kOk) {
      continue;
    }
    for (const Sample& s : r.samples) {
      if (!s.is_distribution() && s.labels == labels && std::isfinite(s.scalar())) return &s;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<EnergySource> EnergyAudit::Apply(std::vector<Reading>& readings,
                                             double interval_seconds) {
  std::vector<EnergySource> sources;
  for (Reading& r : readings) {
    if (r.metric != metrics::kEnergy || r.state != ReadingState::kOk) continue;
    for (Sample& s : r.samples) {
      if (s.is_distribution() || !std::isfinite(s.scalar()) || s.scalar() < 0) continue;
      const double counter = s.scalar();
      const std::string key = r.device + s.labels.ToString();
      EnergySource source{r.device, s.labels, "counter", "unchecked", ""};
      auto [it, first] = states_.try_emplace(key);
      State& state = it->second;
      if (first) {
        state.last_counter = counter;
        state.total = counter;  // the device's own count so far
        sources.push_back(std::move(source));
        continue;
      }
      Interval now;
      now.seconds = interval_seconds > 0 ? interval_seconds : 0;
      now.reset = counter < state.last_counter;  // restarted from zero (or wrapped)
      now.counter_joules = now.reset ? counter : counter - state.last_counter;
      state.last_counter = counter;
      if (const Sample* power = PowerOf(readings, r.device, s.labels); power != nullptr) {
        // Each power reading counted over the interval it ended (as record does).
        now.power_joules = std::max(0.0, power->scalar()) * now.seconds;
      }
      state.window.push_back(now);
      double seconds = 0;
      for (const Interval& i : state.window) seconds += i.seconds;
      while (state.window.size() > 1 && seconds - state.window.front().seconds >= window_seconds_) {
        seconds -= state.window.front().seconds;
        state.window.pop_front();
      }
      double counter_joules = 0, power_joules = 0;
      int64_t resets = 0;
      bool all_power = true;
      for (const Interval& i : state.window) {
        counter_joules += i.counter_joules;
        power_joules += i.power_joules;
        resets += i.reset ? 1 : 0;
        all_power = all_power && i.power_joules >= 0;
      }
      EnergyCheck check;
      if (all_power) check = CheckEnergyCounter(counter_joules, resets, power_joules, seconds);
      Interval& latest = state.window.back();
      if (check.use_power) {
        // The window's intervals counted from the counter are recounted from power (never
        // subtracting: the total stays monotonic).
        for (Interval& i : state.window) {
          if (i.from_power) continue;
          state.total +=
              &i == &latest ? i.power_joules : std::max(0.0, i.power_joules - i.counter_joules);
          i.from_power = true;
        }
        source.source = "power_integral";
        source.detail = "the energy counter " + check.problem;
      } else {
        state.total += latest.counter_joules;
        source.detail = check.agreement.empty() && !all_power
                            ? "not cross-checked (no power readings of this series)"
                            : check.agreement;
      }
      source.verdict = all_power ? check.verdict : "unchecked";
      s.value = state.total;
      sources.push_back(std::move(source));
    }
  }
  return sources;
}

}  // namespace xpuperf::exporter

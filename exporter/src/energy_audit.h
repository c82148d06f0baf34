// serve's energy counters checked against the integral of the power readings of the same device
// and labels (core/energy_check.h), over a trailing window. The exported
// xpuperf_energy_joules_total starts at the device's counter and adds the counter's increases
// while it agrees with ∫ power dt; where it stalls, restarts or disagrees, it adds the power
// integral instead (also for the intervals of the window already counted from the counter), so the
// series stays monotonic and true, and xpuperf_energy_source_info names the source per series.
// One per backend collector, used by its collection thread only (not thread-safe).
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "xpuperf/core/sample.h"

namespace xpuperf::exporter {

// Where one energy series' latest increments came from.
struct EnergySource {
  std::string device;
  Labels labels;        // the energy sample's labels
  std::string source;   // "counter" or "power_integral"
  std::string verdict;  // the check's: "ok", "stalled", "disagrees", "unchecked"
  std::string detail;   // the check's sentence (problem or agreement), for /health
};

class EnergyAudit {
 public:
  // window_seconds: how much history each check looks at.
  explicit EnergyAudit(double window_seconds = 30) : window_seconds_(window_seconds) {}

  // Rewrites the energy_joules samples of `readings` (one collection, `interval_seconds` after the
  // previous one) to the audited totals; returns the source of each.
  std::vector<EnergySource> Apply(std::vector<Reading>& readings, double interval_seconds);

 private:
  struct Interval {
    double seconds = 0;
    double counter_joules = 0;
    double power_joules = -1;  // -1: no power reading
    bool reset = false;
    bool from_power = false;  // its increment in the total came from the power integral
  };
  struct State {
    double last_counter = 0;
    double total = 0;
    std::deque<Interval> window;
  };
  double window_seconds_;
  std::map<std::string, State> states_;  // by device and labels
};

}  // namespace xpuperf::exporter

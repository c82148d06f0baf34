// Reading a recording back (timeline.jsonl), e.g. after a kill: every complete line up to the last
// flush; a last line cut short by the kill is left out and said so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

struct TimelineData {
  int64_t start_wall_ns = 0;
  double rate_hz = 0;
  std::vector<std::string> command;
  std::string host;
  SeriesTable table;
  std::vector<Tick> ticks;            // in file order (wall time ascending as recorded)
  bool dropped_partial_line = false;  // the file ended inside a line
};

// Parses the text of timeline.jsonl. Errors (kParse) name the line: a malformed line anywhere but
// at the very end, a series out of order, a value for an unknown series.
Result<TimelineData> ParseTimelineJsonl(std::string_view text);
// Reads DIR/timeline.jsonl (or the file itself when given a file).
Result<TimelineData> ReadTimeline(const std::string& path);

// A cumulative energy curve of one (device, domain): joules at each sample's wall time, from the
// energy counter (resets corrected) or, without one, from power held until the next sample. A
// counter with power readings of its domain is checked against their integral (energy_check.h);
// when it fails, the power curve is used and counter_problem says why.
struct EnergyTrack {
  std::string device;
  std::string domain;
  bool from_counter = true;
  std::vector<int64_t> wall_ns;
  std::vector<double> joules;  // non-decreasing
  // Median interval between samples (s): windows shorter than this are below the resolution.
  double resolution_s = 0;
  // Set when this is the power integral standing in for an energy counter that failed the check
  // against it (energy_check.h): why the counter was not used.
  std::string counter_problem;
  std::vector<double> counter_values;  // the counter's raw readings while reading (then cleared)
};
std::vector<EnergyTrack> EnergyTracks(const TimelineData& data);

struct WindowEnergy {
  double joules = 0;
  double covered_s = 0;  // part of the window inside the track's samples
};
// Energy in [begin_ns, end_ns): each sample interval's average power (Δjoules/Δt) times its
// overlap with the window; the part of the window outside the samples is not counted (covered_s
// says how much was).
WindowEnergy EnergyInWindow(const EnergyTrack& track, int64_t begin_ns, int64_t end_ns);

// Whether a track belongs in a device total: sub-domains (core, uncore) are inside the package,
// psys (the whole platform) replaces package + dram on its device when present, and the BMC's
// node reading (device "bmc") overlaps everything and is left out.
std::vector<bool> TopLevelTracks(const std::vector<EnergyTrack>& tracks);

}  // namespace xpuperf::record

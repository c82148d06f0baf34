// libFuzzer target for the recording reader (`analyze --telemetry DIR` reads timeline.jsonl, a
// file a user hands in): any bytes give a timeline or an error, never a crash; a timeline that
// parses goes through the energy windows, the statistics, the pattern rules and the summary.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/summary.h"
#include "xpuperf/record/timeline_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xpuperf::record;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto timeline = ParseTimelineJsonl(text);
  if (!timeline.ok()) return 0;
  for (const EnergyTrack& track : EnergyTracks(*timeline)) {
    if (track.wall_ns.empty()) continue;
    (void)EnergyInWindow(track, track.wall_ns.front(), track.wall_ns.back());
  }
  TimelineAccumulator accumulator(64);
  for (const Tick& tick : timeline->ticks) accumulator.Add(tick, timeline->table);
  SummaryInput input;
  input.table = &timeline->table;
  input.stats = &accumulator;
  input.rate_hz = timeline->rate_hz > 0 ? timeline->rate_hz : 1;
  (void)RenderSummaryText(BuildSummary(input));
  return 0;
}

// Renderings of TopModel: the plain refreshing table (pipes, logs) and the ncurses screen.
#pragma once

#include <string>

#include "top_model.h"
#include "xpuperf/telemetry/commands.h"

namespace xpuperf::telemetry {

// One refresh as plain text: device summary, per-core duty cycle, processes.
std::string RenderTopPlain(const TopModel& model, size_t processes);

// "[|||||     ]" of `width` cells for a percentage (NaN renders as "n/a" padded).
std::string Bar(double percent, size_t width);

// Runs the ncurses view until q, a stop request, or options.count refreshes. Returns the exit code;
// fails with a one-line message when the terminal cannot be used or is smaller than 60x16.
// Returns kTopNeedsPlain, having drawn nothing, when the terminal cannot address the cursor
// (TERM=dumb, an unknown TERM): the caller falls back to the plain tables.
inline constexpr int kTopNeedsPlain = -1;
int RunTopTerminal(TopModel& model, const TopOptions& options, std::ostream& err);

inline constexpr int kTopMinColumns = 60;
inline constexpr int kTopMinRows = 16;

}  // namespace xpuperf::telemetry

// report.html: one self-contained file with SVG plots of power, duty cycle, memory and temperature
// over time, the energy table and the findings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "xpuperf/record/accumulator.h"
#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

std::string RenderRecordHtml(const SeriesTable& table, const TimelineAccumulator& stats,
                             const nlohmann::json& summary);

}  // namespace xpuperf::record

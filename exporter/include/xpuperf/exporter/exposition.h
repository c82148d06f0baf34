// Writes a Snapshot in the Prometheus text format 0.0.4 or OpenMetrics 1.0.0, and picks the format
// from a scraper's Accept header. Our own writer rather than prometheus-cpp's TextSerializer, whose
// 1.0.1 output has no OpenMetrics, writes HELP unescaped and NaN as `Nan` (docs/EXPORTER.md).
#pragma once

#include <string>
#include <string_view>

#include "xpuperf/exporter/metric_family.h"

namespace xpuperf::exporter {

enum class ExpositionFormat { kText004, kOpenMetrics100 };

// "text/plain; version=0.0.4; charset=utf-8" or
// "application/openmetrics-text; version=1.0.0; charset=utf-8".
std::string_view ContentType(ExpositionFormat format);

// OpenMetrics when the Accept header ranks `application/openmetrics-text` (version 1.0.0 or
// unversioned) at least as high as the text format, else text 0.0.4 (also for an empty or
// unparsable header).
ExpositionFormat NegotiateFormat(std::string_view accept);

// The whole exposition. Families with no samples are left out; OpenMetrics ends with "# EOF".
// Thread-safe (pure).
std::string Render(const Snapshot& snapshot, ExpositionFormat format);

// Shortest decimal that reads back as `value`; NaN, +Inf, -Inf as Prometheus spells them.
std::string FormatValue(double value);
// A histogram bound as OpenMetrics wants it (always with a decimal point or exponent: "1.0").
std::string FormatBound(double value);

}  // namespace xpuperf::exporter

// The /health document: each backend's and device's state and reason.
#pragma once

#include <string>

#include "xpuperf/exporter/exporter.h"

namespace xpuperf::exporter {

std::string HealthJson(const HealthReport& report);

}  // namespace xpuperf::exporter

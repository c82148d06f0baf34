// Capture ids: the folder name and the id the agents file a capture under.
#pragma once

#include <string>
#include <string_view>

namespace xpuperf::capture {

// "<prefix>-YYYYMMDDTHHMMSSZ-<6 hex digits>": the UTC second the capture starts and a random
// suffix, so two captures started in the same second do not collide. `prefix` must already be
// file-name safe ([A-Za-z0-9._-]); the result adds only digits, letters and '-'.
std::string StampedCaptureId(std::string_view prefix);

}  // namespace xpuperf::capture

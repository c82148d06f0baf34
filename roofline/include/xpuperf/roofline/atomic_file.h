// Writes a file so that readers see the old content or the whole new one, never a part.
#pragma once

#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::roofline {

// Writes `text` to a temporary file next to `path` and renames it over `path`. kIo naming the
// path when the directory is missing or a write fails; nothing is left behind then.
Status WriteFileAtomically(const std::string& path, std::string_view text);

}  // namespace xpuperf::roofline

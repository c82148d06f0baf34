// What `--spec` names, for every command that takes it (bench check, roofline, diagnose, analyze):
// a sheet file, or a shipped sheet by its name ("nvidia-a100-sxm-80gb") or its device.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::spec {

// ASCII lower case (sheet names match case-insensitively).
std::string Lower(std::string_view text);
// How a sheet is named to the user: its file name without .yaml, or the device of a computed one.
std::string SheetName(const SpecSheet& sheet);
// "a, b, c": the names of `sheets`, for "(shipped: ...)" in errors and notes.
std::string ShippedSheetNames(const std::vector<SpecSheet>& sheets);
// --spec FILE, or the name or device of a shipped sheet; kNotFound names the shipped sheets.
Result<SpecSheet> LoadSpecArgument(const std::string& spec);

}  // namespace xpuperf::spec

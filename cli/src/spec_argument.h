// What `--spec` names, shared by the commands that take it (bench check, roofline, diagnose,
// analyze).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::cli {

std::string Lower(std::string_view text);

// How a sheet is named to the user: its file name without .yaml, or the device of a computed one.
std::string SheetName(const spec::SpecSheet& sheet);
std::string ShippedSheetNames(const std::vector<spec::SpecSheet>& sheets);

// --spec FILE, or the name ("nvidia-a100-sxm-80gb") or device of a shipped sheet.
Result<spec::SpecSheet> LoadSpecArgument(const std::string& spec);

// This machine's CPU as the CPU backend sees it under `root`.
Result<Device> LocalCpuDevice(const std::string& root);

}  // namespace xpuperf::cli

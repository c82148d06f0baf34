#include "spec_argument.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "xpuperf/core/backend.h"
#include "xpuperf/cpu/cpu_backend.h"

namespace xpuperf::cli {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string SheetName(const spec::SpecSheet& sheet) {
  return sheet.file.empty() ? sheet.device : std::filesystem::path(sheet.file).stem().string();
}

std::string ShippedSheetNames(const std::vector<spec::SpecSheet>& sheets) {
  std::string names;
  for (const spec::SpecSheet& sheet : sheets) {
    names += (names.empty() ? "" : ", ") + SheetName(sheet);
  }
  return names;
}

Result<spec::SpecSheet> LoadSpecArgument(const std::string& spec) {
  std::error_code ec;
  if (std::filesystem::exists(spec, ec)) return spec::LoadSpecSheet(spec);
  XPUPERF_ASSIGN_OR_RETURN(const std::vector<spec::SpecSheet> sheets,
                           spec::LoadSpecSheets(spec::ShippedSpecSheetDir()));
  for (const spec::SpecSheet& sheet : sheets) {
    if (Lower(SheetName(sheet)) == Lower(spec)) return sheet;
  }
  if (const spec::SpecSheet* sheet = spec::FindSpecSheet(sheets, spec)) return *sheet;
  return MakeError(ErrorCode::kNotFound,
                   fmt::format("--spec {}: no such file and no shipped spec sheet of that name "
                               "(shipped: {})",
                               spec, ShippedSheetNames(sheets)));
}

Result<Device> LocalCpuDevice(const std::string& root) {
  BackendOptions backend_options;
  backend_options.root = root;
  XPUPERF_ASSIGN_OR_RETURN(auto backend, cpu::CreateCpuBackend(backend_options));
  if (backend->devices().empty()) {
    return MakeError(ErrorCode::kUnavailable, "the CPU backend reports no device");
  }
  return backend->devices().front();
}

}  // namespace xpuperf::cli

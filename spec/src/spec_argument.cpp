#include "xpuperf/spec/spec_argument.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace xpuperf::spec {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string SheetName(const SpecSheet& sheet) {
  return sheet.file.empty() ? sheet.device : std::filesystem::path(sheet.file).stem().string();
}

std::string ShippedSheetNames(const std::vector<SpecSheet>& sheets) {
  std::string names;
  for (const SpecSheet& sheet : sheets) {
    names += (names.empty() ? "" : ", ") + SheetName(sheet);
  }
  return names;
}

Result<SpecSheet> LoadSpecArgument(const std::string& spec) {
  std::error_code ec;
  if (std::filesystem::exists(spec, ec)) return LoadSpecSheet(spec);
  XPUPERF_ASSIGN_OR_RETURN(const std::vector<SpecSheet> sheets,
                           LoadSpecSheets(ShippedSpecSheetDir()));
  for (const SpecSheet& sheet : sheets) {
    if (Lower(SheetName(sheet)) == Lower(spec)) return sheet;
  }
  if (const SpecSheet* sheet = FindSpecSheet(sheets, spec)) return *sheet;
  return MakeError(ErrorCode::kNotFound,
                   fmt::format("--spec {}: no such file and no shipped spec sheet of that name "
                               "(shipped: {})",
                               spec, ShippedSheetNames(sheets)));
}

}  // namespace xpuperf::spec

// libFuzzer target for spec sheets (YAML): a SpecSheet or a one-line error, never a crash or an
// uncaught exception; a sheet that parses answers its ridge-point queries.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/spec/spec_sheet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto sheet = xpuperf::spec::ParseSpecSheet(text, "fuzz.yaml");
  if (sheet.ok()) {
    for (const auto& [precision, peak] : sheet->peak_flops_per_second) {
      (void)sheet->RidgePoint(precision);
    }
  }
  return 0;
}

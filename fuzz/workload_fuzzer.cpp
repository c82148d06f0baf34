// libFuzzer target for roofline workload files (YAML): a Workload or a one-line error, never a
// crash or an uncaught exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/roofline/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)xpuperf::roofline::ParseWorkload(text, "fuzz.yaml");
  return 0;
}

// libFuzzer target for PyTorch memory-timeline exports (JSON): a summary or an error, never a
// crash, also when the text does not look like a timeline at all.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/trace/memory_timeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)xpuperf::trace::LooksLikeMemoryTimeline(text);
  (void)xpuperf::trace::ParseMemoryTimeline(text, "fuzz");
  return 0;
}

// libFuzzer target for result files (results.jsonl): records or an error naming the line, never a
// crash, whatever the types of the fields.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/bench/result_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)xpuperf::bench::ParseResultsJsonl(text, "results.jsonl");
  return 0;
}

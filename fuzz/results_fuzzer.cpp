// libFuzzer target for result directories: results.jsonl records or an error naming the line, and
// with an environment.json (the input after a NUL byte) the directory's run, its partial-run fields
// and the note readers print, never a crash, whatever the types of the fields.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xpuperf/bench/result_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)xpuperf::bench::ParseResultsJsonl(text, "results.jsonl");
  const size_t split = text.find('\0');
  if (split != std::string_view::npos) {
    auto run = xpuperf::bench::ParseResultDirectory(text.substr(0, split),
                                                    std::string(text.substr(split + 1)), "dir");
    if (run.ok()) (void)xpuperf::bench::PartialRunNote(*run, "fuzz");
  }
  return 0;
}

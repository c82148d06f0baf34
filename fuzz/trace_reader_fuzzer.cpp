// libFuzzer target for the trace reader: any bytes must give a Trace or an error, never a crash; a
// trace that parses is also run through every analysis. Small chunks exercise the chunk cutter.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/trace/memory_timeline.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (xpuperf::trace::LooksLikeMemoryTimeline(text)) {
    (void)xpuperf::trace::ParseMemoryTimeline(text, "fuzz");
    return 0;
  }
  auto trace = xpuperf::trace::ParseTrace(text, "fuzz", 64);
  if (!trace.ok()) return 0;
  xpuperf::trace::TraceRun run;
  run.ranks.push_back(std::move(trace).value());
  auto report = xpuperf::trace::AnalyzeRun(run, 5);
  (void)xpuperf::trace::ToJson(report).dump();
  return 0;
}

// libFuzzer target for the .xplane.pb reader and the ProfileResponse decoder: any bytes must give
// a Trace or an error, never a crash, a hang or an out-of-range read; a trace that parses is run
// through every analysis and the Chrome-trace export's string escaping path (to /dev/null).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xpuperf/trace/chrome_export.h"
#include "xpuperf/trace/report.h"
#include "xpuperf/trace/xplane.h"
#include "xpuperf/xla_profiler/xla_profiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)xpuperf::xla_profiler::DecodeProfileResponse(bytes);
  auto parsed = xpuperf::trace::ParseXSpace(bytes, "fuzz.xplane.pb");
  if (!parsed.ok()) return 0;
  xpuperf::trace::TraceRun run;
  run.ranks.push_back(std::move(parsed).value());
  auto report = xpuperf::trace::AnalyzeRun(run, 5);
  (void)xpuperf::trace::ToJson(report).dump();
  (void)xpuperf::trace::WriteChromeTrace(run, "/dev/null");
  return 0;
}

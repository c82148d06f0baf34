// The Chrome-trace JSON reader's speed alone, without any analysis (trace::ParseTrace: events,
// interning, the sort), as read_timing.h times it.
//   json_read_only FILE [RUNS]
#include "read_timing.h"
#include "xpuperf/trace/reader.h"

int main(int argc, char** argv) {
  return xpuperf::trace::tools::TimeReads(argc, argv, "FILE.json",
                                          [](std::string_view bytes, const char* path) {
                                            // As ReadTraceFile reads: chunks parsed in place (the
                                            // bytes are this tool's own string).
                                            xpuperf::trace::ParseOptions options;
                                            options.writable_text = true;
                                            return xpuperf::trace::ParseTrace(bytes, path, options);
                                          });
}

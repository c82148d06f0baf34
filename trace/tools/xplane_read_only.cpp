// The .xplane.pb reader's speed alone (scripts/xplane-perf.sh): trace::ParseXSpace (decode,
// intern, sort), as read_timing.h times it.
//   xplane_read_only FILE [RUNS]
#include "read_timing.h"
#include "xpuperf/trace/xplane.h"

int main(int argc, char** argv) {
  return xpuperf::trace::tools::TimeReads(argc, argv, "FILE.xplane.pb",
                                          [](std::string_view bytes, const char* path) {
                                            return xpuperf::trace::ParseXSpace(bytes, path);
                                          });
}

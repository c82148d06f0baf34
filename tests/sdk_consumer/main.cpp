// Opens a session over the built-in backends and reads one metric from every device: what an
// embedder of the C++ SDK does first. Exit 0 when each step works.
#include <cstdio>

#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/session.h"

int main() {
  auto session = xpuperf::Session::Open(xpuperf::BuiltinBackendRegistry(), {});
  if (!session.ok()) {
    std::fprintf(stderr, "sdk_consumer: %s\n", session.error().message.c_str());
    return 1;
  }
  if ((*session)->devices().empty()) {
    std::fprintf(stderr, "sdk_consumer: no device (the CPU backend always has one)\n");
    return 1;
  }
  auto readings = (*session)->Collect({"memory_used_bytes"});
  if (!readings.ok() || readings->empty()) {
    std::fprintf(stderr, "sdk_consumer: no reading\n");
    return 1;
  }
  for (const xpuperf::Reading& reading : *readings) {
    std::printf("%s %s %s\n", reading.device.c_str(), reading.metric.c_str(),
                reading.state == xpuperf::ReadingState::kOk ? "ok" : reading.reason.c_str());
  }
  return 0;
}

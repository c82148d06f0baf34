// Test helper (not installed): one ProfileXlaServer call from the command line, for the
// end-to-end tests against a real JAX process. `xpuperf capture --jax` is the user's command.
//   xla_profile_client HOST:PORT DURATION_MS OUT.xplane.pb [START_IN_MS]
// Prints "bytes=N empty_trace=0|1 wall_ms=M" on success; the error and exit 1 otherwise.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/xla_profiler/xla_profiler.h"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: %s HOST:PORT DURATION_MS OUT.xplane.pb [START_IN_MS]\n", argv[0]);
    return 2;
  }
  xpuperf::InstallCancellationHandlers();
  xpuperf::xla_profiler::XlaProfileRequest request;
  request.address = argv[1];
  request.duration_ms = std::strtoull(argv[2], nullptr, 10);
  request.output_path = argv[3];
  if (argc == 5) {
    const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    request.start_timestamp_ns =
        static_cast<uint64_t>(now) + std::strtoull(argv[4], nullptr, 10) * 1'000'000ull;
  }
  auto result = xpuperf::xla_profiler::ProfileXlaServer(request);
  if (!result.ok()) {
    std::fprintf(stderr, "xla_profile_client: %s\n", result.error().message.c_str());
    return xpuperf::CancellationRequested() ? xpuperf::CancellationExitCode() : 1;
  }
  std::printf("bytes=%llu empty_trace=%d wall_ms=%lld\n",
              static_cast<unsigned long long>(result->xspace_bytes), result->empty_trace ? 1 : 0,
              static_cast<long long>((result->finished_ns - result->started_ns) / 1'000'000));
  return 0;
}

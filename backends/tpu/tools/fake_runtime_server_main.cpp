// tpu_fake_runtime_server SCENARIO [PORT]: serves a scripted fake libtpu runtime metric service on
// 127.0.0.1 (PORT 0 or absent: the OS picks one) and prints "port N" once it listens, so a test can
// point TPU_RUNTIME_METRICS_PORTS at it. Runs until killed.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fake_runtime_scenarios.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s busy|dual-core|empty|unavailable|slow|core-error [PORT]\n",
                 argv[0]);
    return 2;
  }
  auto script = xpuperf::tpu::testing::Scenario(argv[1]);
  if (!script) {
    std::fprintf(stderr, "unknown scenario '%s'\n", argv[1]);
    return 2;
  }
  const int port = argc > 2 ? std::atoi(argv[2]) : 0;
  auto server = xpuperf::tpu::testing::FakeRuntimeServer::Start(std::move(*script), port);
  if (!server) {
    std::fprintf(stderr, "cannot listen on 127.0.0.1:%d\n", port);
    return 1;
  }
  std::printf("port %d\n", server->port());
  std::fflush(stdout);
  server->Wait();
  return 0;
}

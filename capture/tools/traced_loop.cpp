// A stand-in for a training job in the automatic-capture test: a loop of XPUPERF_SCOPE ranges
// ("train_step" around "forward" and "backward") that registers with the node's agent when
// XPUPERF_TRACER_AGENT=1 (as a KINETO_USE_DAEMON=1 PyTorch process does) and so can be traced
// on demand. Runs for argv[1] seconds (default 60) or until SIGTERM/SIGINT.
#include <csignal>
#include <cstdlib>
#include <thread>

#include "xpuperf/tracer/on_demand.h"
#include "xpuperf/tracer/tracer.h"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  const double seconds = argc > 1 ? std::atof(argv[1]) : 60;
  if (!xpuperf::tracer::StartOnDemandFromEnvironment()) return 1;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!g_stop && std::chrono::steady_clock::now() < end) {
    XPUPERF_SCOPE("train_step");
    {
      XPUPERF_SCOPE("forward");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    {
      XPUPERF_SCOPE("backward");
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
  }
  xpuperf::tracer::StopOnDemand();
  return 0;
}

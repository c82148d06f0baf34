#include "xpuperf/core/cancellation.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

namespace xpuperf {
namespace {

std::atomic<int> requested_signal{0};

constexpr int kTemporarySlots = 64;
constexpr size_t kTemporaryPathBytes = 4096;
// A slot is free (0), being written (1) or holds a path the handler may unlink (2).
std::atomic<int> slot_state[kTemporarySlots];
char slot_path[kTemporarySlots][kTemporaryPathBytes];

void RemoveRegisteredTemporaryFiles() {
  for (int i = 0; i < kTemporarySlots; ++i) {
    if (slot_state[i].load() == 2) ::unlink(slot_path[i]);
  }
}

extern "C" void OnCancellationSignal(int signal) {
  int expected = 0;
  if (requested_signal.compare_exchange_strong(expected, signal)) return;
  // Second signal: the user does not want to wait for the orderly stop.
  RemoveRegisteredTemporaryFiles();
  ::_exit(128 + signal);
}

}  // namespace

void InstallCancellationHandlers() {
  struct sigaction action {};
  action.sa_handler = OnCancellationSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool CancellationRequested() { return requested_signal.load(std::memory_order_relaxed) != 0; }

int CancellationSignal() { return requested_signal.load(std::memory_order_relaxed); }

Status CheckCancelled() {
  const int signal = CancellationSignal();
  if (signal == 0) return Status::Ok();
  const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
  // kUnavailable: the work could have been done but was stopped; CancellationRequested() tells
  // callers (main's exit code) that this is a cancellation and not another failure.
  return MakeError(ErrorCode::kUnavailable, std::string("interrupted by ") + name);
}

int CancellationExitCode() {
  const int signal = CancellationSignal();
  return 128 + (signal == 0 ? SIGINT : signal);
}

void RequestCancellation(int signal) {
  int expected = 0;
  requested_signal.compare_exchange_strong(expected, signal == 0 ? SIGINT : signal);
}

void ResetCancellationForTesting() { requested_signal.store(0); }

bool SleepUnlessCancelled(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  while (!CancellationRequested()) {
    const auto now = Clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(50)));
  }
  return false;
}

int RegisterTemporaryFile(const std::string& path) {
  if (path.size() >= kTemporaryPathBytes) return -1;
  for (int i = 0; i < kTemporarySlots; ++i) {
    int expected = 0;
    if (!slot_state[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(slot_path[i], path.c_str(), path.size() + 1);
    slot_state[i].store(2);
    return i;
  }
  return -1;
}

void UnregisterTemporaryFile(int slot) {
  if (slot < 0 || slot >= kTemporarySlots) return;
  slot_state[slot].store(0);
}

}  // namespace xpuperf

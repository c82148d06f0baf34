// Active tests of a CUDA device for `xpuperf diag`: the device-memory pattern test (level 2) and a
// verified compute and memory stress (level 3). Every function exists in every build: without CUDA,
// a CUDA driver or the device each answers kUnsupported with the reason.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

struct DeviceMemoryTestOptions {
  uint64_t bytes = uint64_t{256} << 20;  // device memory to test (capped at 90 % of what is free)
  int passes = 1;
  uint64_t seed = 1;
  // Tests only: after each fill, this word is overwritten from the host, so the test must find
  // exactly one wrong word per pattern.
  std::optional<uint64_t> inject_fault_at_word;
};

struct DeviceMemoryTestResult {
  uint64_t bytes = 0;
  uint64_t words_checked = 0;
  uint64_t errors = 0;      // words read back wrong, over every pattern and pass
  int patterns = 0;         // patterns run (x passes)
  std::string first_error;  // "pattern walking-ones: word 12 read 0x… expected 0x…"
  double seconds = 0;
};

// The patterns of memory_test_patterns.h written by one kernel and verified by another, on the CUDA
// device at `pci_bus_id` ("0000:3b:00.0", any case). Stops between patterns when cancelled.
Result<DeviceMemoryTestResult> RunDeviceMemoryTest(const std::string& pci_bus_id,
                                                   const DeviceMemoryTestOptions& options);

struct DeviceStressResult {
  uint64_t rounds = 0;              // compute + memory rounds completed
  uint64_t compute_mismatches = 0;  // FMA chain results that differ from their twin threads'
  uint64_t memory_errors = 0;       // memory pattern words read back wrong
  std::string first_error;
  double seconds = 0;
};

// Until `stop` (or cancellation): rounds of fp32 FMA chains on every SM, each thread's result
// checked against the thread that computed the same chain, and a random-pattern pass over
// `bytes` of device memory.
Result<DeviceStressResult> RunDeviceStress(const std::string& pci_bus_id, uint64_t bytes,
                                           const std::atomic<bool>& stop);

}  // namespace xpuperf::cuda_bench

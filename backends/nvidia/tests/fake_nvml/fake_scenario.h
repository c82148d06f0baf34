// The scripted state of the fake libnvidia-ml.so.1: a key=value file named by
// $XPUPERF_FAKE_NVML_SCENARIO (format in README.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fake_nvml {

struct FakeGpu {
  unsigned index = 0;
  std::map<std::string, std::string> values;  // keys without the "gpu.N." prefix
  bool lost = false;
  // `lost_when_file = PATH`: the GPU falls off the bus once PATH exists (a test in another
  // process makes a GPU lost mid-run by creating the file).
  std::string lost_when_file;
  int gpm_samples_taken = 0;
  int xids_delivered = 0;
  bool events_registered = false;
  unsigned long long energy_calls = 0;  // nvmlDeviceGetTotalEnergyConsumption calls answered

  // MIG: a MIG device is a FakeGpu with `parent` set, `slot` its index among the parent's MIG
  // handles (scenario keys "gpu.N.mig.<slot>.<key>"); a GPU owns its MIG devices.
  FakeGpu* parent = nullptr;
  unsigned slot = 0;
  std::vector<std::unique_ptr<FakeGpu>> migs;

  std::optional<std::string> Get(const std::string& key) const;
  std::optional<unsigned long long> Number(const std::string& key) const;  // decimal or 0x hex
  std::optional<double> Real(const std::string& key) const;
  // True when lost, or when lost_when_file has appeared (then it stays lost); a MIG device is lost
  // with its GPU.
  bool IsLost();
};

struct Scenario {
  std::map<std::string, std::string> global;
  std::vector<std::unique_ptr<FakeGpu>> gpus;
};

// Parses `path`; an unreadable file or a malformed line gives an empty scenario and a message on
// stderr (tests then see no GPU).
Scenario LoadScenario(const char* path);

}  // namespace fake_nvml

#include "fake_scenario.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace fake_nvml {
namespace {

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

}  // namespace

std::optional<std::string> FakeGpu::Get(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<unsigned long long> FakeGpu::Number(const std::string& key) const {
  auto text = Get(key);
  if (!text) return std::nullopt;
  return std::strtoull(text->c_str(), nullptr, 0);
}

std::optional<double> FakeGpu::Real(const std::string& key) const {
  auto text = Get(key);
  if (!text) return std::nullopt;
  return std::strtod(text->c_str(), nullptr);
}

Scenario LoadScenario(const char* path) {
  Scenario scenario;
  if (path == nullptr) return scenario;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "fake libnvidia-ml: cannot read scenario %s\n", path);
    return scenario;
  }
  std::map<unsigned, std::map<std::string, std::string>> per_gpu;
  for (std::string line; std::getline(in, line);) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "fake libnvidia-ml: no '=' in scenario line: %s\n", line.c_str());
      return Scenario{};
    }
    const std::string key = Trim(line.substr(0, eq));
    const std::string value = Trim(line.substr(eq + 1));
    if (key.rfind("gpu.", 0) == 0) {
      const size_t dot = key.find('.', 4);
      if (dot == std::string::npos) continue;
      const unsigned index = static_cast<unsigned>(std::strtoul(key.c_str() + 4, nullptr, 10));
      per_gpu[index][key.substr(dot + 1)] = value;
    } else {
      scenario.global[key] = value;
    }
  }
  unsigned count = per_gpu.empty() ? 0 : per_gpu.rbegin()->first + 1;
  for (unsigned i = 0; i < count; ++i) {
    auto gpu = std::make_unique<FakeGpu>();
    gpu->index = i;
    gpu->values = per_gpu[i];
    gpu->lost = gpu->Get("lost") == "1";
    gpu->lost_when_file = gpu->Get("lost_when_file").value_or("");
    // "mig.<slot>.<key>" keys describe the GPU's MIG devices.
    std::map<unsigned, std::map<std::string, std::string>> per_mig;
    for (const auto& [key, value] : gpu->values) {
      if (key.rfind("mig.", 0) != 0) continue;
      const size_t dot = key.find('.', 4);
      if (dot == std::string::npos) continue;
      per_mig[static_cast<unsigned>(std::strtoul(key.c_str() + 4, nullptr, 10))]
             [key.substr(dot + 1)] = value;
    }
    for (auto& [slot, values] : per_mig) {
      auto mig = std::make_unique<FakeGpu>();
      mig->index = i;
      mig->slot = slot;
      mig->parent = gpu.get();
      mig->values = std::move(values);
      gpu->migs.push_back(std::move(mig));
    }
    scenario.gpus.push_back(std::move(gpu));
  }
  return scenario;
}

bool FakeGpu::IsLost() {
  if (parent != nullptr) return parent->IsLost();
  if (!lost && !lost_when_file.empty() && ::access(lost_when_file.c_str(), F_OK) == 0) lost = true;
  return lost;
}

}  // namespace fake_nvml

// Test helpers: recorded trees under data/trees, writable copies of them, and sample lookup.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "xpuperf/core/sample.h"
#include "xpuperf/cpu/simd_utilization.h"

namespace xpuperf::cpu::testing {

inline std::string RecordedTree(const std::string& name) {
  return std::string(XPUPERF_TEST_DATA_DIR) + "/trees/" + name;
}

// A private copy of a recorded tree (or an empty directory) that tests may change between
// snapshots; removed at the end of the test. `only` limits the copy to files whose path starts with
// one of the prefixes ("/proc/"), which keeps tests fast: copying is the slow part.
class TempTree {
 public:
  explicit TempTree(const std::string& recorded_name = "", std::vector<std::string> only = {}) {
    std::string pattern = (std::filesystem::temp_directory_path() / "xpuperf-cpu-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    if (recorded_name.empty()) return;
    const std::string source = RecordedTree(recorded_name);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(source)) {
      if (!entry.is_regular_file()) continue;
      const std::string path = entry.path().string().substr(source.size());
      const bool wanted = only.empty() || std::any_of(only.begin(), only.end(), [&](const auto& p) {
                            return path.starts_with(p);
                          });
      if (!wanted) continue;
      std::filesystem::create_directories(std::filesystem::path(root_ + path).parent_path());
      std::filesystem::copy_file(entry.path(), root_ + path);
    }
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& root() const { return root_; }
  // path is absolute inside the tree ("/proc/stat").
  void Write(const std::string& path, const std::string& contents) const {
    std::filesystem::create_directories(std::filesystem::path(root_ + path).parent_path());
    std::ofstream(root_ + path, std::ios::trunc) << contents;
  }
  void Remove(const std::string& path) const { std::filesystem::remove_all(root_ + path); }

 private:
  std::string root_;
};

// The sample whose labels besides device="cpu0" are exactly `labels`; nullptr if none.
inline const Sample* FindSample(const Reading& reading, Labels labels) {
  labels.Set("device", "cpu0");
  for (const Sample& sample : reading.samples) {
    if (sample.labels == labels) return &sample;
  }
  return nullptr;
}

inline const Reading& ReadingOf(const std::vector<Reading>& readings, std::string_view metric) {
  for (const Reading& reading : readings) {
    if (reading.metric == metric) return reading;
  }
  ADD_FAILURE() << "no reading for " << metric;
  static const Reading kMissing;
  return kMissing;
}

// A SimdUtilization that returns scripted per-CPU percentages and records the elapsed times asked.
class ScriptedSimdUtilization final : public SimdUtilization {
 public:
  explicit ScriptedSimdUtilization(std::vector<double> per_cpu, std::vector<double>* elapsed_log)
      : per_cpu_(std::move(per_cpu)), elapsed_log_(elapsed_log) {}
  Result<std::vector<double>> SamplePercent(double elapsed_seconds) override {
    elapsed_log_->push_back(elapsed_seconds);
    return per_cpu_;
  }
  std::string peak_description() const override { return "scripted"; }

 private:
  std::vector<double> per_cpu_;
  std::vector<double>* elapsed_log_;
};

}  // namespace xpuperf::cpu::testing

// Test helpers for the GPU backends: a private, writable copy of a recorded tree (removed at the
// end of the test), the sample lookup tests need, and an fd test that accepts the plain files a
// recorded /proc/<pid>/fd holds in place of device links.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "xpuperf/core/sample.h"

namespace xpuperf::drm::testing {

class TempTree {
 public:
  // Copies `source` (a recorded tree) when not empty.
  explicit TempTree(const std::string& source = "") {
    std::string pattern = (std::filesystem::temp_directory_path() / "xpuperf-gpu-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    if (!source.empty()) {
      std::filesystem::copy(source, root_, std::filesystem::copy_options::recursive);
    }
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& root() const { return root_; }
  // path is absolute inside the tree ("/proc/1/fdinfo/3").
  void Write(const std::string& path, const std::string& contents) const {
    std::filesystem::create_directories(std::filesystem::path(root_ + path).parent_path());
    std::ofstream(root_ + path, std::ios::trunc | std::ios::binary) << contents;
  }
  void Copy(const std::string& from_file, const std::string& path) const {
    std::filesystem::copy_file(from_file, root_ + path,
                               std::filesystem::copy_options::overwrite_existing);
  }
  void Remove(const std::string& path) const { std::filesystem::remove_all(root_ + path); }

 private:
  std::string root_;
};

// Recorded fd entries are empty regular files.
inline bool RecordedFdIsDrm(const std::string& fd_path) {
  return std::filesystem::is_regular_file(fd_path);
}

// The sample of `reading` whose labels are exactly device=`device` plus `extra`; nullptr if none.
inline const Sample* FindSample(const Reading& reading, const std::string& device,
                                Labels extra = {}) {
  extra.Set("device", device);
  for (const Sample& sample : reading.samples) {
    if (sample.labels == extra) return &sample;
  }
  return nullptr;
}

// The value of that sample, or NaN (so EXPECT_DOUBLE_EQ fails with the labels in the message).
inline double ValueOf(const Reading& reading, const std::string& device, Labels extra = {}) {
  const Sample* s = FindSample(reading, device, extra);
  if (s == nullptr) {
    ADD_FAILURE() << "no sample " << extra.ToString() << " in " << reading.metric << " ("
                  << reading.reason << ")";
    return std::nan("");
  }
  return s->scalar();
}

inline const Reading& ReadingOf(const std::vector<Reading>& readings, std::string_view metric,
                                std::string_view device) {
  for (const Reading& reading : readings) {
    if (reading.metric == metric && reading.device == device) return reading;
  }
  ADD_FAILURE() << "no reading for " << metric << " on " << device;
  static const Reading kMissing;
  return kMissing;
}

}  // namespace xpuperf::drm::testing

// Helpers for the cli tests: golden files and running the xpuperf executable.
#pragma once

#include <string>
#include <vector>

namespace xpuperf::cli::testing {

// Compares `actual` with tests/data/golden/<name>; XPUPERF_UPDATE_GOLDEN=1 rewrites the file
// instead. Returns an empty string on match, else a message with both texts.
std::string CompareGolden(const std::string& name, const std::string& actual);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs the built xpuperf with `args` (no shell interpretation of the arguments).
CommandResult RunXpuperf(const std::vector<std::string>& args, double timeout_seconds = 30);
// The same from `working_directory` (relative paths in `args` resolve there).
CommandResult RunXpuperfIn(const std::string& working_directory,
                           const std::vector<std::string>& args, double timeout_seconds = 30);

// The fake libnvidia-ml.so.1 of backends/nvidia/tests/fake_nvml ("full": a current driver) serving
// `scenario`, through XPUPERF_NVML_LIBRARY and XPUPERF_FAKE_NVML_SCENARIO for the object's life.
class FakeNvml {
 public:
  explicit FakeNvml(const std::string& scenario);
  ~FakeNvml();
  FakeNvml(const FakeNvml&) = delete;
  FakeNvml& operator=(const FakeNvml&) = delete;
  static std::string Library();
};

}  // namespace xpuperf::cli::testing

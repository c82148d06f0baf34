// The real CPU plugin for tests, from the pjrt_plugin_environment fixture (skipped when absent).
#pragma once

#include <fstream>
#include <string>

inline std::string CpuPluginPath() {
  std::ifstream in(XPUPERF_PJRT_PLUGIN_PATH_FILE);
  std::string path;
  std::getline(in, path);
  return path;
}

#define XPUPERF_REQUIRE_CPU_PLUGIN(path)                                                    \
  const std::string path = CpuPluginPath();                                                 \
  if (path.empty())                                                                         \
  GTEST_SKIP() << "XLA's CPU PJRT plugin is not available to this build (the "              \
                  "pjrt_plugin_environment test makes it with scripts/python-env.sh pjrt; " \
                  "sanitizer and minimal builds leave it out)"

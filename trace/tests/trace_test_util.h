// Helpers for the trace tests: the shared real traces and synthetic trace text.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "xpuperf/trace/reader.h"

namespace xpuperf::trace::testing {

inline std::string TraceDir() { return XPUPERF_TRACE_DIR; }

inline std::string SharedTrace(const std::string& name) { return TraceDir() + "/" + name; }

// Skips the test when the shared traces are absent (a checkout without ../shared/data/traces).
#define XPUPERF_REQUIRE_TRACE(path)                                                     \
  do {                                                                                  \
    if (!std::filesystem::exists(path)) {                                               \
      GTEST_SKIP() << "shared trace " << (path)                                         \
                   << " not found (set -DXPUPERF_TRACE_DIR to the real traces folder)"; \
    }                                                                                   \
  } while (false)

// A Kineto-style document around `events` (comma-separated JSON objects).
inline std::string KinetoJson(const std::string& events, const std::string& header = "") {
  return "{\"schemaVersion\": 1, " + header + (header.empty() ? "" : ", ") + "\"traceEvents\": [" +
         events + "]}";
}

inline Trace ParseOrDie(const std::string& json) {
  auto result = ParseTrace(json, "test.json");
  if (!result.ok()) {
    ADD_FAILURE() << result.error().message;
    return Trace{};
  }
  return std::move(result).value();
}

}  // namespace xpuperf::trace::testing

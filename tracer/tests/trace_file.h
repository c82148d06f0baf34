// Helpers of the tracer tests: temporary paths, reading a written trace back with nlohmann::json
// (an independent parser), and checking the Chrome-trace structure every event must have.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace xpuperf::tracer::testing {

inline std::string TempTracePath(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("xpuperf-tracer-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parses the trace (fails the test when it is not valid JSON) and checks the fields every event
// of its phase must carry.
inline nlohmann::json ReadTrace(const std::string& path) {
  nlohmann::json trace = nlohmann::json::parse(ReadText(path), nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(trace.is_object()) << path << " is not a JSON object";
  if (!trace.is_object()) return trace;
  EXPECT_EQ(trace.value("displayTimeUnit", ""), "ns");
  EXPECT_TRUE(trace["traceEvents"].is_array());
  EXPECT_TRUE(trace["metadata"].is_object());
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    EXPECT_TRUE(e.at("name").is_string());
    EXPECT_TRUE(e.at("pid").is_number_integer());
    EXPECT_TRUE(e.at("tid").is_number_integer());
    EXPECT_EQ(e.at("pid").get<int64_t>(), getpid());
    if (ph == "M") continue;
    EXPECT_TRUE(e.at("ts").is_number());
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    if (ph == "X") {
      EXPECT_TRUE(e.at("cat").is_string());
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
    } else if (ph == "C") {
      EXPECT_TRUE(e.at("args").at("value").is_number());
    } else if (ph == "i") {
      EXPECT_EQ(e.at("s"), "t");
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  return trace;
}

// The events of one phase, in file order.
inline std::vector<nlohmann::json> EventsOf(const nlohmann::json& trace, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e.at("ph") == ph) out.push_back(e);
  }
  return out;
}

// ts + dur in integer ns (ts and dur are µs with three decimals).
inline int64_t Ns(double us) { return static_cast<int64_t>(us * 1000.0 + (us >= 0 ? 0.5 : -0.5)); }
inline int64_t BeginNs(const nlohmann::json& e) { return Ns(e.at("ts").get<double>()); }
inline int64_t EndNs(const nlohmann::json& e) {
  return Ns(e.at("ts").get<double>()) + Ns(e.value("dur", 0.0));
}

}  // namespace xpuperf::tracer::testing

// The synthetic Kineto trace generator: valid JSON of the requested size with the event kinds and
// fields of real PyTorch profiler traces, consistent timings, and the same bytes for the same seed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

fs::path TempDir() {
  const fs::path dir =
      fs::temp_directory_path() / ("xpuperf-tools-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

int RunCommand(const std::string& command) {
  const int status = std::system((command + " 2>/dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Generate(const std::string& name, const std::string& args) {
  const fs::path out = TempDir() / name;
  EXPECT_EQ(RunCommand(std::string(GENERATOR_PATH) + " " + args + " --out " + out.string()), 0);
  return out.string();
}

TEST(SyntheticTraceTest, OneMegabyteTraceHasTheKinetoEventMix) {
  const std::string path = Generate("one.json", "--size 1M --seed 7");
  const auto size = fs::file_size(path);
  // At least the requested 1e6 bytes; the generator stops after the step that crosses it
  // (a step is ~250 kB).
  EXPECT_GE(size, 1'000'000u);
  EXPECT_LT(size, 1'400'000u);

  const auto trace = nlohmann::json::parse(ReadText(path), nullptr, false);
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(trace["schemaVersion"], 1);
  EXPECT_EQ(trace["deviceProperties"].size(), 8u);
  EXPECT_EQ(trace["deviceProperties"][0]["numSms"], 108);
  EXPECT_EQ(trace["distributedInfo"]["rank"], 0);
  EXPECT_EQ(trace["distributedInfo"]["world_size"], 1);
  EXPECT_TRUE(trace.contains("baseTimeNanoseconds"));

  std::map<std::string, int> kinds;             // "ph/cat"
  std::map<uint64_t, nlohmann::json> launches;  // correlation -> cuda_runtime event
  std::set<std::string> steps;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    const std::string cat = e.value("cat", "");
    ++kinds[ph + "/" + cat];
    if (ph == "X") {
      ASSERT_GE(e["dur"].get<double>(), 0.0);
    }
    if (cat == "cuda_runtime") launches[e["args"]["correlation"].get<uint64_t>()] = e;
    if (cat == "user_annotation" && e["name"].get<std::string>().rfind("ProfilerStep#", 0) == 0) {
      steps.insert(e["name"]);
    }
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      // GPU work starts after the call that launched it ends (launches are written first).
      const auto it = launches.find(e["args"]["correlation"].get<uint64_t>());
      ASSERT_NE(it, launches.end()) << e.dump();
      EXPECT_GE(e["ts"].get<double>(),
                it->second["ts"].get<double>() + it->second["dur"].get<double>());
      EXPECT_EQ(e["args"]["External id"], it->second["args"]["External id"]);
      EXPECT_TRUE(e["args"].contains("stream"));
      EXPECT_TRUE(e["args"].contains("device"));
    }
    if (cat == "gpu_memcpy" || cat == "gpu_memset") {
      EXPECT_GT(e["args"]["bytes"], 0);
    }
    if (cat == "cpu_op") {
      EXPECT_TRUE(e["args"].contains("External id"));
    }
    if (e.value("name", "") == "[memory]") {
      EXPECT_EQ(ph, "i");
      for (const char* key : {"Addr", "Bytes", "Total Allocated", "Total Reserved", "Device Id"}) {
        EXPECT_TRUE(e["args"].contains(key)) << key;
      }
    }
  }
  for (const char* kind : {"X/cpu_op", "X/cuda_runtime", "X/kernel", "X/gpu_memcpy", "X/gpu_memset",
                           "X/python_function", "X/user_annotation", "i/cpu_instant_event",
                           "s/ac2g", "f/ac2g", "X/cuda_sync", "M/"}) {
    EXPECT_GT(kinds[kind], 0) << kind;
  }
  // The proportions of a training trace: CPU ops lead, each kernel has a launch call.
  EXPECT_GT(kinds["X/cpu_op"], kinds["X/kernel"]);
  EXPECT_GE(kinds["X/cuda_runtime"], kinds["X/kernel"]);
  EXPECT_GE(steps.size(), 4u);
  EXPECT_TRUE(steps.count("ProfilerStep#1"));
}

TEST(SyntheticTraceTest, SameSeedSameBytes) {
  const std::string a = Generate("a.json", "--size 300K --seed 11");
  const std::string b = Generate("b.json", "--size 300K --seed 11");
  const std::string c = Generate("c.json", "--size 300K --seed 12");
  EXPECT_EQ(ReadText(a), ReadText(b));
  EXPECT_NE(ReadText(a), ReadText(c));
}

TEST(SyntheticTraceTest, RanksGoToOneFileEach) {
  const fs::path dir = TempDir() / "ranks";
  fs::remove_all(dir);
  ASSERT_EQ(
      RunCommand(std::string(GENERATOR_PATH) + " --size 200K --ranks 2 --out " + dir.string()), 0);
  for (int rank = 0; rank < 2; ++rank) {
    const auto trace = nlohmann::json::parse(
        ReadText(dir / ("rank-" + std::to_string(rank) + ".json")), nullptr, false);
    ASSERT_TRUE(trace.is_object());
    EXPECT_EQ(trace["distributedInfo"]["rank"], rank);
    EXPECT_EQ(trace["distributedInfo"]["world_size"], 2);
  }
}

TEST(SyntheticTraceTest, BadArgumentsAreUsageErrors) {
  const std::string out = (TempDir() / "bad.json").string();
  EXPECT_EQ(RunCommand(std::string(GENERATOR_PATH) + " --size 12X --out " + out), 2);
  EXPECT_EQ(RunCommand(std::string(GENERATOR_PATH) + " --size 1M"), 2);
  EXPECT_EQ(RunCommand(std::string(GENERATOR_PATH) + " --size 1M --ranks 0 --out " + out), 2);
  EXPECT_EQ(RunCommand(std::string(GENERATOR_PATH) + " --size 1M --out /nonexistent-dir/x.json"),
            1);
  EXPECT_FALSE(fs::exists(out));
}

TEST(SyntheticTraceTest, ParseOnlyToolCountsEveryEvent) {
  const std::string path = Generate("parse.json", "--size 200K --seed 3");
  const auto trace = nlohmann::json::parse(ReadText(path));
  const std::string report = (TempDir() / "parse.txt").string();
  ASSERT_EQ(RunCommand(std::string(PARSE_ONLY_PATH) + " " + path + " > " + report), 0);
  const std::string expected = "events=" + std::to_string(trace["traceEvents"].size()) + " ";
  EXPECT_EQ(ReadText(report).rfind(expected, 0), 0u) << ReadText(report);
  // In 4 kB chunks: the same events, fields and sums as in one.
  const std::string chunked = (TempDir() / "parse-chunked.txt").string();
  ASSERT_EQ(RunCommand(std::string(PARSE_ONLY_PATH) + " " + path + " 4096 > " + chunked), 0);
  auto counts = [](const std::string& text) { return text.substr(0, text.find(" load_s=")); };
  EXPECT_EQ(counts(ReadText(chunked)), counts(ReadText(report)));
  EXPECT_NE(RunCommand(std::string(PARSE_ONLY_PATH) + " /nonexistent.json"), 0);
  EXPECT_EQ(RunCommand(std::string(PARSE_ONLY_PATH) + " " + path + " 0"), 2);
}

}  // namespace

// `xpuperf record` files read by `analyze --telemetry`: after a kill -9 of the recorder, and a
// handmade recording with exact energy per step; the merged Chrome trace.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include "record_test_util.h"
#include "test_util.h"

namespace xpuperf::cli {
namespace {

using namespace record_testing;
using testing::RunXpuperf;

// A handmade recording: one package-0 energy counter read once a second from wall time t0, with
// the given counter values in joules.
std::string HandmadeRecording(int64_t t0, const std::vector<int>& joules) {
  std::string jsonl = "{\"type\":\"header\",\"start_wall_ns\":" + std::to_string(t0) +
                      ",\"rate_hz\":1}\n"
                      "{\"type\":\"series\",\"index\":0,\"metric\":\"energy_joules\",\"device\":"
                      "\"cpu0\",\"labels\":{\"domain\":\"package-0\"},\"unit\":\"joules\"}\n";
  for (size_t i = 0; i < joules.size(); ++i) {
    const auto ns = static_cast<int64_t>(i) * 1'000'000'000LL;
    jsonl += "{\"type\":\"tick\",\"wall_ns\":" + std::to_string(t0 + ns) +
             ",\"mono_ns\":" + std::to_string(ns) + ",\"values\":[[0," + std::to_string(joules[i]) +
             "]]}\n";
  }
  return jsonl;
}

TEST_F(RecordTest, KillNineLeavesFilesAnalyzeTelemetryReads) {
  const fs::path out = dir_ / "out";
  const fs::path job_pid = dir_ / "job.pid";
  Background b = Start({"record", "--backend", "cpu", "--rate", "50", "--out", out.string(), "--",
                        "sh", "-c", "echo $$ > " + job_pid.string() + "; exec sleep 30"});
  ASSERT_TRUE(WaitForFile(job_pid, 20));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(b.pid, SIGKILL);
  EXPECT_EQ(Wait(b.pid), 128 + SIGKILL);
  ::kill(std::stoi(ReadAll(job_pid)), SIGKILL);
  ::unlink(b.err_path.c_str());

  // Whole lines only; the Chrome trace is still one JSON document.
  const std::string csv = ReadAll(out / "timeline.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  EXPECT_FALSE(json::parse(ReadAll(out / "timeline.trace.json"), nullptr, false).is_discarded());
  // A trace whose two steps fall inside the recording, by wall clock (Kineto's base + ts).
  std::istringstream lines(ReadAll(out / "timeline.jsonl"));
  std::string header_line;
  std::getline(lines, header_line);
  const int64_t start = json::parse(header_line)["start_wall_ns"].get<int64_t>();
  const int64_t base = start / 1'000'000'000 * 1'000'000'000;
  const double offset_us = static_cast<double>(start - base) / 1e3;
  json trace = {
      {"schemaVersion", 1}, {"baseTimeNanoseconds", base}, {"traceEvents", json::array()}};
  for (int step = 0; step < 2; ++step) {
    trace["traceEvents"].push_back({{"ph", "X"},
                                    {"cat", "user_annotation"},
                                    {"name", "ProfilerStep#" + std::to_string(step)},
                                    {"pid", 1},
                                    {"tid", 1},
                                    {"ts", offset_us + 200'000 + step * 400'000},
                                    {"dur", 400'000}});
  }
  const fs::path trace_file = dir_ / "trace.json";
  Write(trace_file, trace.dump());
  const fs::path merged = dir_ / "merged.json";
  auto r = RunXpuperf({"analyze", trace_file.string(), "--telemetry", out.string(), "--json",
                       "--merged-trace", merged.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json& telemetry = doc["telemetry"];
  EXPECT_EQ(telemetry["alignment"]["trace_base_time_ns"].get<int64_t>(), base);
  // The header's start is the first sample's own instant (it was once read before the files
  // were opened, a gap that a loaded machine can stretch past the 10 ms this test once allowed).
  EXPECT_NEAR(telemetry["alignment"]["trace_starts_after_telemetry_seconds"].get<double>(), 0.2,
              1e-6);
  if (!telemetry.contains("unavailable")) {  // this host has an energy source
    ASSERT_EQ(telemetry["steps"].size(), 2u);
    EXPECT_NEAR(telemetry["steps"][0]["duration_seconds"].get<double>(), 0.4, 1e-9);
    EXPECT_NEAR(telemetry["steps"][0]["telemetry_coverage"].get<double>(), 1.0, 1e-6);
  }
  // The merged trace holds the ops and the counter tracks.
  json merged_doc = json::parse(ReadAll(merged));
  int ops = 0, counters = 0;
  for (const json& e : merged_doc["traceEvents"]) {
    ops += e["ph"] == "X";
    counters += e["ph"] == "C";
  }
  EXPECT_EQ(ops, 2);
  EXPECT_GT(counters, 10);
}

TEST_F(RecordTest, AnalyzeTelemetryEnergyPerStepIsExact) {
  // A handmade recording: package-0 counter 0 J at t0, 10 J at t0 + 1 s, 30 J at t0 + 2 s.
  const int64_t t0 = 1'750'000'000'000'000'000;
  const std::string jsonl = HandmadeRecording(t0, {0, 10, 30});
  fs::create_directories(dir_ / "rec");
  Write(dir_ / "rec" / "timeline.jsonl", jsonl);
  // ProfilerStep#7 from t0 + 0.5 s to t0 + 1.5 s: 0.5 s at 10 W + 0.5 s at 20 W = 15 J.
  json trace = {{"baseTimeNanoseconds", t0},
                {"traceEvents",
                 {{{"ph", "X"},
                   {"cat", "user_annotation"},
                   {"name", "ProfilerStep#7"},
                   {"pid", 1},
                   {"tid", 1},
                   {"ts", 500000},
                   {"dur", 1000000}}}}};
  Write(dir_ / "trace.json", trace.dump());
  auto r = RunXpuperf({"analyze", (dir_ / "trace.json").string(), "--telemetry",
                       (dir_ / "rec").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = json::parse(r.out)["telemetry"];
  ASSERT_EQ(t["steps"].size(), 1u);
  EXPECT_EQ(t["steps"][0]["step"], 7);
  EXPECT_DOUBLE_EQ(t["steps"][0]["joules"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(t["steps"][0]["average_watts"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(t["joules_per_step"]["mean"].get<double>(), 15.0);
  auto text = RunXpuperf(
      {"analyze", (dir_ / "trace.json").string(), "--telemetry", (dir_ / "rec").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("J/step: mean 15.000"), std::string::npos) << text.out;
  // A broken recording is one clear line and exit 1.
  Write(dir_ / "rec" / "timeline.jsonl", jsonl + "garbage\n" + jsonl);
  auto bad = RunXpuperf(
      {"analyze", (dir_ / "trace.json").string(), "--telemetry", (dir_ / "rec").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("timeline.jsonl line 6: not a JSON object"), std::string::npos) << bad.err;
}

TEST_F(RecordTest, AnalyzeTelemetryEnergyPerOpClassAndPerFlopIsExact) {
  // A handmade recording at a constant 10 W (0, 10, 20 J at t0, t0 + 1 s, t0 + 2 s).
  const int64_t t0 = 1'750'000'000'000'000'000;
  const std::string jsonl = HandmadeRecording(t0, {0, 10, 20});
  fs::create_directories(dir_ / "rec");
  Write(dir_ / "rec" / "timeline.jsonl", jsonl);
  // Host op aten::mm 0.10-0.15 s (M=1000, K=2000, N=3000: 1.2e10 FLOP), its GEMM kernel
  // 0.2-0.6 s, an NCCL all-reduce 0.5-0.9 s. GPU busy 0.2-0.9 s, so idle 0.1-0.2 s in the window.
  auto kernel = [](const char* name, int64_t ts, int64_t dur, int id, int stream) {
    return json{
        {"ph", "X"},     {"cat", "kernel"},
        {"name", name},  {"pid", 0},
        {"tid", stream}, {"ts", ts},
        {"dur", dur},    {"args", {{"External id", id}, {"device", 0}, {"stream", stream}}}};
  };
  json mm = {{"ph", "X"},
             {"cat", "cpu_op"},
             {"name", "aten::mm"},
             {"pid", 1},
             {"tid", 1},
             {"ts", 100000},
             {"dur", 50000},
             {"args",
              {{"External id", 1},
               {"Input Dims", {{1000, 2000}, {2000, 3000}}},
               {"Input type", {"float", "float"}}}}};
  json trace = {{"baseTimeNanoseconds", t0},
                {"traceEvents",
                 {mm, kernel("volta_sgemm_128x64_nn", 200000, 400000, 1, 7),
                  kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 500000, 400000, 2, 8)}}};
  Write(dir_ / "trace.json", trace.dump());
  auto r = RunXpuperf({"analyze", (dir_ / "trace.json").string(), "--telemetry",
                       (dir_ / "rec").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = json::parse(r.out)["telemetry"];
  std::map<std::string, double> joules;
  for (const json& c : t["op_classes"]) joules[c["class"]] = c["joules"].get<double>();
  EXPECT_NEAR(joules["COMPUTE"], 4.0, 1e-9) << t["op_classes"].dump();
  EXPECT_NEAR(joules["COMM"], 4.0, 1e-9);
  EXPECT_NEAR(joules["host_op"], 0.5, 1e-9);
  EXPECT_NEAR(joules["gpu_idle"], 1.0, 1e-9);
  EXPECT_NEAR(t["trace_window"]["joules"].get<double>(), 8.0, 1e-9);
  ASSERT_TRUE(t["gemm"].contains("joules_per_flop")) << t["gemm"].dump();
  EXPECT_DOUBLE_EQ(t["gemm"]["flops"].get<double>(), 1.2e10);
  EXPECT_NEAR(t["gemm"]["joules_per_flop"].get<double>(), 8.0 / 1.2e10, 1e-20);
  EXPECT_NEAR(t["gemm"]["gflop_per_joule"].get<double>(), 1.5, 1e-9);
  // Without shapes there is no J/FLOP, and the reason says what to record.
  trace["traceEvents"][0]["args"].erase("Input Dims");
  Write(dir_ / "trace.json", trace.dump());
  auto no_shapes = RunXpuperf({"analyze", (dir_ / "trace.json").string(), "--telemetry",
                               (dir_ / "rec").string(), "--json"});
  ASSERT_EQ(no_shapes.exit_code, 0) << no_shapes.err;
  EXPECT_NE(json::parse(no_shapes.out)["telemetry"]["gemm"]["unavailable"].get<std::string>().find(
                "record_shapes=True"),
            std::string::npos);
}

}  // namespace
}  // namespace xpuperf::cli

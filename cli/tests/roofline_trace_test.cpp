// `xpuperf roofline --trace` and `xpuperf diagnose --trace`: GEMM points of a trace judged against
// the spec sheet of the trace's GPU, and the trace's findings next to the verdicts.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "xpuperf/core/exit_code.h"
#include "xpuperf/roofline/roofline_command.h"
#include "xpuperf/roofline/trace_points.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::cli {
namespace {

namespace fs = std::filesystem;
using roofline::GemmWorkloadPoint;
using roofline::RooflineDtype;

const std::string kData = std::string(XPUPERF_TEST_DATA_DIR) + "/roofline";
// deviceProperties: one "NVIDIA A100-SXM4-80GB" (an alias of spec/sheets/nvidia-a100-sxm-80gb).
// GEMMs, each kernel joined to its op by External id:
//  - aten::mm [4096,4096] x [4096,4096], c10::BFloat16, called twice, kernels 500 us each:
//    per call FLOP = 2*4096^3 = 137438953472, bytes = 3*4096^2*2 = 100663296;
//    point: FLOP 274877906944, bytes 201326592, time 1 ms.
//  - aten::addmm bias [1024], [8,1024] x [1024,1024], float, once, kernel ampere_sgemm (no tensor
//    cores) 10 us: FLOP = 2*8*1024*1024 = 16777216,
//    bytes = (8*1024 + 1024*1024 + 8*1024)*4 = 4259840; time 10 us.
//  - one pageable HtoD memcpy (the pageable_memcpy finding).
const std::string kTrace = kData + "/trace-a100.json";
// The same events without "Input Dims".
const std::string kTraceNoShapes = kData + "/trace-a100-no-shapes.json";

// The A100 80GB SXM sheet: bf16 312e12, fp32 19.5e12 FLOP/s, HBM 2039e9 B/s.
constexpr double kBf16Peak = 312e12;
constexpr double kFp32Peak = 19.5e12;
constexpr double kHbm = 2039e9;

struct Output {
  int code;
  std::string out, err;
};

Output RunCommand(const roofline::RooflineOptions& options, bool diagnose) {
  std::ostringstream out, err;
  const int code = diagnose ? roofline::RunDiagnose(options, out, err)
                            : roofline::RunRoofline(options, out, err);
  return {code, out.str(), err.str()};
}

roofline::RooflineOptions TraceOptions(const std::string& trace = kTrace) {
  roofline::RooflineOptions o;
  o.trace = trace;
  return o;
}

fs::path TempDir() {
  const fs::path dir = fs::temp_directory_path() / ("roofline-trace-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

// kTrace with another deviceProperties name.
std::string TraceOnDevice(const std::string& device) {
  std::ifstream in(kTrace);
  std::stringstream text;
  text << in.rdbuf();
  std::string json = text.str();
  const std::string from = "NVIDIA A100-SXM4-80GB";
  json.replace(json.find(from), from.size(), device);
  const fs::path path = TempDir() / "other-device.json";
  std::ofstream(path) << json;
  return path.string();
}

TEST(RooflineTrace, DtypeOfInputType) {
  std::string note;
  EXPECT_EQ(RooflineDtype("c10::BFloat16", "", &note), "bf16");
  EXPECT_EQ(RooflineDtype("c10::Half", "", &note), "fp16");
  EXPECT_EQ(RooflineDtype("double", "", &note), "fp64");
  EXPECT_EQ(RooflineDtype("c10::Float8_e4m3fn", "", &note), "fp8");
  EXPECT_EQ(RooflineDtype("float", "ampere_sgemm_128x64_nn", &note), "fp32");
  EXPECT_TRUE(note.empty()) << note;
  EXPECT_EQ(RooflineDtype("float", "ampere_tf32_s1688gemm_tf32_128x128_nn", &note), "tf32");
  EXPECT_NE(note.find("tf32"), std::string::npos);
  note.clear();
  EXPECT_EQ(RooflineDtype("float", "Cijk_Ailk_Bjlk_SB_MT64x16x16_MI16x16x1", &note), "fp32");
  EXPECT_TRUE(note.empty()) << note;
  EXPECT_EQ(RooflineDtype("c10::complex<float>", "", &note), "fp32");
  EXPECT_NE(note.find("c10::complex<float>"), std::string::npos);
}

TEST(RooflineTrace, GemmPointBecomesWorkloadPoint) {
  trace::GemmPoint g;
  g.op = "aten::addmm";
  g.kernel = "sm80_xmma_gemm_bf16bf16_bf16f32";
  g.m = g.n = g.k = 4096;
  g.flops = 2.0 * 4096 * 4096 * 4096;
  g.bytes = 3.0 * 4096 * 4096 * 2;
  g.calls = 1200;
  g.time_ns = 600'000'000;
  g.dtype = "c10::BFloat16";
  const roofline::WorkloadPoint p = GemmWorkloadPoint(g);
  EXPECT_EQ(p.name, "aten::addmm 4096x4096x4096 bf16 (×1200 calls)");
  EXPECT_EQ(p.op, "gemm");
  EXPECT_EQ(p.dtype, "bf16");
  EXPECT_EQ(p.flops, 137438953472.0 * 1200);
  EXPECT_EQ(p.bytes, 100663296.0 * 1200);
  ASSERT_TRUE(p.time_seconds);
  EXPECT_DOUBLE_EQ(*p.time_seconds, 0.6);
  g.batch = 8;
  EXPECT_EQ(GemmWorkloadPoint(g).name, "aten::addmm b8 4096x4096x4096 bf16 (×1200 calls)");
}

TEST(RooflineTrace, DiagnoseJsonJudgesTheGemmsAgainstTheA100Sheet) {
  roofline::RooflineOptions o = TraceOptions();
  o.json = true;
  const Output r = RunCommand(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["device"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(j["trace"]["ceilings"],
            "ceilings: spec sheet nvidia-a100-sxm-80gb (from the trace's deviceProperties)");
  EXPECT_EQ(j["trace"]["gemm_points"], 2);
  EXPECT_EQ(j["trace"]["left_out"], 0);
  ASSERT_EQ(j["points"].size(), 2u);

  const nlohmann::json& mm = j["points"][0];  // the most kernel time first
  EXPECT_EQ(mm["name"], "aten::mm 4096x4096x4096 bf16 (×2 calls)");
  EXPECT_EQ(mm["dtype"], "bf16");
  EXPECT_EQ(mm["flops"].get<double>(), 274877906944.0);
  EXPECT_EQ(mm["bytes"].get<double>(), 201326592.0);
  EXPECT_DOUBLE_EQ(mm["time_seconds"].get<double>(), 1e-3);
  EXPECT_EQ(mm["bound"], "compute");
  EXPECT_EQ(mm["peak_flops_per_second"].get<double>(), kBf16Peak);
  // Compute term 274877906944 / 312e12 = 881.0 us > memory term 201326592 / 2039e9 = 98.7 us.
  EXPECT_DOUBLE_EQ(mm["roof_seconds"].get<double>(), 274877906944.0 / kBf16Peak);
  EXPECT_DOUBLE_EQ(mm["fraction_of_roof"].get<double>(), 274877906944.0 / kBf16Peak / 1e-3);

  const nlohmann::json& addmm = j["points"][1];
  EXPECT_EQ(addmm["name"], "aten::addmm 8x1024x1024 fp32 (×1 call)");
  EXPECT_EQ(addmm["dtype"], "fp32");
  EXPECT_EQ(addmm["flops"].get<double>(), 16777216.0);
  EXPECT_EQ(addmm["bytes"].get<double>(), 4259840.0);
  EXPECT_DOUBLE_EQ(addmm["time_seconds"].get<double>(), 10e-6);
  // Memory term 4259840 / 2039e9 = 2.089 us > compute term 16777216 / 19.5e12 = 0.860 us.
  EXPECT_EQ(addmm["bound"], "memory");
  EXPECT_EQ(addmm["bound_scope"], "HBM");
  EXPECT_EQ(addmm["peak_flops_per_second"].get<double>(), kFp32Peak);
  EXPECT_DOUBLE_EQ(addmm["roof_seconds"].get<double>(), 4259840.0 / kHbm);

  // The findings are those `xpuperf analyze` reports for the same file.
  auto run = trace::ReadTraceRun(kTrace);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const trace::RunReport analysed = trace::AnalyzeRun(*run);
  ASSERT_EQ(analysed.ranks.size(), 1u);
  const auto& expected = analysed.ranks[0].findings;
  ASSERT_EQ(j["trace_findings"].size(), expected.size());
  ASSERT_FALSE(expected.empty());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(j["trace_findings"][i]["rule"], expected[i].rule);
    EXPECT_EQ(j["trace_findings"][i]["title"], expected[i].title);
    EXPECT_EQ(j["trace_findings"][i]["evidence"], expected[i].evidence);
    EXPECT_EQ(j["trace_findings"][i]["advice"], expected[i].advice);
  }
  EXPECT_EQ(j["trace_findings"][0]["rule"], "pageable_memcpy");
}

TEST(RooflineTrace, DiagnoseTextShowsVerdictsAndFindings) {
  const Output r = RunCommand(TraceOptions(), /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("ceilings: spec sheet nvidia-a100-sxm-80gb (from the trace's "
                       "deviceProperties)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("GEMM points: 2 of 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aten::mm 4096x4096x4096 bf16 (×2 calls)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory HBM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Trace findings"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pageable host memory"), std::string::npos) << r.out;
}

TEST(RooflineTrace, RooflineCeilingsAreTheSheets) {
  roofline::RooflineOptions o = TraceOptions();
  o.json = true;
  const Output r = RunCommand(o, /*diagnose=*/false);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool bf16 = false, hbm = false;
  for (const auto& c : j["ceilings"]) {
    EXPECT_EQ(c["source"], "spec") << c.dump();
    if (c["label"] == "bf16 peak (spec)") bf16 = c["value"].get<double>() == kBf16Peak;
    if (c["label"] == "HBM (spec)") hbm = c["value"].get<double>() == kHbm;
  }
  EXPECT_TRUE(bf16);
  EXPECT_TRUE(hbm);
  EXPECT_EQ(j["spec"]["device"], "NVIDIA A100 SXM 80GB");
  EXPECT_EQ(j["points"].size(), 2u);
}

TEST(RooflineTrace, TopKeepsTheLongestAndSaysHowManyWereLeftOut) {
  roofline::RooflineOptions o = TraceOptions();
  o.top = 1;
  const Output r = RunCommand(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("GEMM points: 1 of 2 (the top 1 by kernel time; 1 left out)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("aten::mm 4096x4096x4096"), std::string::npos);
  EXPECT_EQ(r.out.find("aten::addmm 8x1024x1024"), std::string::npos);
}

TEST(RooflineTrace, CommandLinePointComesFirst) {
  roofline::RooflineOptions o = TraceOptions();
  o.json = true;
  o.flops = 1e12;
  o.bytes = 1e9;
  o.dtype = "bf16";
  o.time_seconds = 0.01;
  const Output r = RunCommand(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_EQ(j["points"][0]["name"], "command line");
  EXPECT_EQ(j["points"][1]["name"], "aten::mm 4096x4096x4096 bf16 (×2 calls)");
}

TEST(RooflineTrace, NoShapesGivesFindingsAndTheNote) {
  const Output text = RunCommand(TraceOptions(kTraceNoShapes), /*diagnose=*/true);
  ASSERT_EQ(text.code, kExitOk) << text.err;
  EXPECT_NE(text.out.find("GEMM points: none: none of the trace's 3 GEMM ops has recorded input "
                          "shapes: profile with record_shapes=True"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("Verdicts"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("pageable host memory"), std::string::npos) << text.out;

  roofline::RooflineOptions o = TraceOptions(kTraceNoShapes);
  o.json = true;
  const Output r = RunCommand(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["points"].empty());
  EXPECT_EQ(j["trace"]["gemm_points"], 0);
  EXPECT_NE(j["trace"]["note"].get<std::string>().find("record_shapes"), std::string::npos);
  ASSERT_EQ(j["trace_findings"].size(), 1u);
  EXPECT_EQ(j["trace_findings"][0]["rule"], "pageable_memcpy");
}

TEST(RooflineTrace, MalformedTraceIsOneLineNamingFileAndByteAndWritesNothing) {
  const fs::path svg = TempDir() / "malformed.svg";
  fs::remove(svg);
  roofline::RooflineOptions o =
      TraceOptions(std::string(XPUPERF_TEST_DATA_DIR) + "/analyze/truncated.json");
  o.svg = svg.string();
  for (bool diagnose : {false, true}) {
    const Output r = RunCommand(o, diagnose);
    EXPECT_EQ(r.code, kExitFailure);
    const std::string prefix = diagnose ? "xpuperf diagnose: error: " : "xpuperf roofline: error: ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    EXPECT_NE(r.err.find("truncated.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("at byte "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_FALSE(fs::exists(svg));
}

// A GPU trace is not judged against a CPU result directory when its GPU has a sheet.
TEST(RooflineTrace, ResultsOfAnotherDeviceAreRefused) {
  roofline::RooflineOptions o = TraceOptions();
  o.results_dir = kData + "/results-cpu";
  const Output r = RunCommand(o, /*diagnose=*/true);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("ran on NVIDIA A100-SXM4-80GB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvidia-a100-sxm-80gb"), std::string::npos) << r.err;
}

// A GPU without a sheet: placed against the given ceilings with a note, refused without any.
TEST(RooflineTrace, UnknownGpuUsesGivenCeilingsWithANoteOrIsRefused) {
  const std::string trace = TraceOnDevice("NVIDIA Imaginary GPU");
  roofline::RooflineOptions o = TraceOptions(trace);
  o.results_dir = kData + "/results-cpu";
  Output r = RunCommand(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("not the trace's NVIDIA Imaginary GPU (no shipped spec sheet matches it)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("memory DRAM"), std::string::npos) << r.out;

  r = RunCommand(TraceOptions(trace), /*diagnose=*/false);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("no ceilings for the trace's device NVIDIA Imaginary GPU"),
            std::string::npos)
      << r.err;

  // diagnose still shows the findings, and says why the points are not judged.
  r = RunCommand(TraceOptions(trace), /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("The trace's GEMM points are not judged."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pageable host memory"), std::string::npos) << r.out;

  // --spec NAME chooses a sheet; the output says it describes another device.
  o = TraceOptions(trace);
  o.spec = "nvidia-h100-sxm";
  r = RunCommand(o, /*diagnose=*/true);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("ceilings: spec sheet nvidia-h100-sxm (--spec); note: the sheet describes "
                       "NVIDIA H100 SXM, the trace ran on NVIDIA Imaginary GPU"),
            std::string::npos)
      << r.out;
}

TEST(RooflineTrace, DiagnoseNeedsAWorkloadOrATrace) {
  const Output r = RunCommand(roofline::RooflineOptions{}, /*diagnose=*/true);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--trace PATH"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace xpuperf::cli

namespace xpuperf::cli {
namespace {

// A CPU run recorded with record_shapes=True: aten::linear (with the aten::addmm inside it) twice
// on one thread, no GPU kernel. Per call FLOP = 2*8*1024*1024 = 16777216, 1 ms each.
std::string CpuTrace(bool shapes) {
  const std::string dims = shapes ? R"(, "Input Dims": [[8, 1024], [1024, 1024], [1024]],
      "Input type": ["float", "float", "float"])"
                                  : "";
  const std::string inner = shapes ? R"(, "Input Dims": [[1024], [8, 1024], [1024, 1024]],
      "Input type": ["float", "float", "float"])"
                                   : "";
  std::string events;
  for (int call = 0; call < 2; ++call) {
    const int ts = 1000 + call * 5000;
    events += fmt::format(
        R"({{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": {},
            "dur": 1000, "args": {{"External id": {}{}}}}},
           {{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": {},
            "dur": 900, "args": {{"External id": {}{}}}}},)",
        ts, 10 + 2 * call, dims, ts + 50, 11 + 2 * call, inner);
  }
  events.pop_back();
  const fs::path path = TempDir() / (shapes ? "cpu-shapes.json" : "cpu-no-shapes.json");
  std::ofstream(path) << R"({"schemaVersion": 1, "traceEvents": [)" << events << "]}";
  return path.string();
}

TEST(RooflineTrace, ACpuTraceWithShapesGivesCpuPointsAgainstTheCpuCeilings) {
  roofline::RooflineOptions o = TraceOptions(CpuTrace(true));
  o.results_dir = kData + "/results-cpu";
  o.spec = "none";
  const Output text = RunCommand(o, /*diagnose=*/false);
  ASSERT_EQ(text.code, kExitOk) << text.err;
  EXPECT_NE(text.out.find("GEMM points: 1 of 1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("the trace is a CPU run"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("aten::linear 8x1024x1024 fp32 (×2 calls)"), std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("record_shapes"), std::string::npos) << text.out;
  o.json = true;
  const nlohmann::json j = nlohmann::json::parse(RunCommand(o, false).out);
  ASSERT_EQ(j["points"].size(), 1u);
  // The outer op only: 2 calls x 16777216 FLOP in 2 ms (not the nested addmm counted again).
  EXPECT_DOUBLE_EQ(j["points"][0]["flops"].get<double>(), 2.0 * 16777216);
  EXPECT_DOUBLE_EQ(j["points"][0]["time_seconds"].get<double>(), 2e-3);
  EXPECT_TRUE(j["trace"]["cpu_trace"].get<bool>());
}

TEST(RooflineTrace, ACpuTraceWithoutShapesSaysSoAndItsHtmlShowsOnlyWhatItHas) {
  roofline::RooflineOptions o = TraceOptions(CpuTrace(false));
  o.results_dir = kData + "/results-cpu";
  o.spec = "none";
  const fs::path html = TempDir() / "no-points.html";
  fs::remove(html);
  o.html = html.string();
  const Output text = RunCommand(o, /*diagnose=*/false);
  ASSERT_EQ(text.code, kExitOk) << text.err;
  EXPECT_NE(text.out.find("none of the trace's 4 GEMM ops has recorded input shapes: profile with "
                          "record_shapes=True"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("No points: none of the trace's 4 GEMM ops"), std::string::npos)
      << text.out;
  std::ifstream in(html);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_EQ(page.str().find("Points (by bound)"), std::string::npos);
  EXPECT_NE(page.str().find("No points: none of the trace"), std::string::npos);
  EXPECT_EQ(page.str().find("()</title>"), std::string::npos);
}

// A trace alone (no result directory): the HTML names the trace and its sheet, not "Run -"; the
// legend lists only the spec ceilings it draws.
TEST(RooflineTrace, ATraceOnlyReportNamesItsSources) {
  roofline::RooflineOptions o = TraceOptions(kTraceNoShapes);
  const fs::path html = TempDir() / "trace-only.html";
  fs::remove(html);
  o.html = html.string();
  const Output text = RunCommand(o, /*diagnose=*/false);
  ASSERT_EQ(text.code, kExitOk) << text.err;
  std::ifstream in(html);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_EQ(page.str().find("Run -"), std::string::npos);
  EXPECT_NE(page.str().find("trace " + kTraceNoShapes), std::string::npos);
  EXPECT_EQ(page.str().find("measured peak"), std::string::npos);
  EXPECT_EQ(page.str().find("cache_sweep read plateaus"), std::string::npos);
  EXPECT_NE(page.str().find("spec sheet"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::cli

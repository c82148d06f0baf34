#include "xpuperf/analysis/cpu_spec_sheet.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "xpuperf/core/backend.h"
#include "xpuperf/cpu/cpu_backend.h"

namespace xpuperf::analysis {
namespace {

const std::string kTrees = XPUPERF_CPU_TREES;

// The device the CPU backend discovers in a recorded tree.
Device TreeDevice(const std::string& tree) {
  BackendOptions options;
  options.root = kTrees + "/" + tree;
  auto backend = cpu::CreateCpuBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.error().ToString();
  if (!backend.ok() || (*backend)->devices().empty()) return {};
  return (*backend)->devices().front();
}

TEST(CpuSpecSheetTest, RyzenPeaksFromCoresLanesAndClock) {
  const Device device = TreeDevice("amd-zen");
  ASSERT_EQ(device.topology.cores, 6);
  auto sheet = CpuSpecSheet(device, kTrees + "/amd-zen");
  ASSERT_TRUE(sheet.ok()) << sheet.error().ToString();
  EXPECT_TRUE(sheet->computed);
  EXPECT_EQ(sheet->device, "AMD Ryzen 5 5600X 6-Core Processor");
  // Zen 3 (family 25): full 256-bit FMA. 6 cores x 2 pipes x 4 fp64 lanes x 2 FLOP x 3.975 GHz
  // (the highest "cpu MHz" of the tree; it has no cpuinfo_max_freq).
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("fp64"), 6 * 2 * 4 * 2 * 3.975e9);
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("fp32"), 6 * 2 * 8 * 2 * 3.975e9);
  EXPECT_EQ(sheet->peak_flops_per_second.size(), 2u);
  EXPECT_NE(sheet->peak_sources.at("fp64").find("6 cores"), std::string::npos);
  EXPECT_NE(sheet->peak_sources.at("fp64").find("avx2_fma"), std::string::npos);
  EXPECT_NE(sheet->peak_sources.at("fp64").find("3.975 GHz"), std::string::npos);
  // The tree has no SMBIOS table: the memory bandwidth is unknown and says why.
  EXPECT_EQ(sheet->memory_bandwidth_bytes_per_second, 0);
  EXPECT_NE(sheet->memory_unknown_reason.find("no SMBIOS memory device table"), std::string::npos)
      << sheet->memory_unknown_reason;
  EXPECT_FALSE(sheet->host_link.has_value());
  EXPECT_FALSE(sheet->network_link.has_value());
}

TEST(CpuSpecSheetTest, IcelakeVmWithoutSysfsUsesCpuinfoClock) {
  const Device device = TreeDevice("vm");
  auto sheet = CpuSpecSheet(device, kTrees + "/vm");
  ASSERT_TRUE(sheet.ok()) << sheet.error().ToString();
  // 4 vCPUs, each its own core (no topology ids). The hardware's widest ISA, not the build's:
  // Ice Lake server (model 106) has AVX-512 with two 512-bit FMA units, so 4 x 2 pipes x 8 fp64
  // lanes x 2 FLOP x 2593.906 MHz from /proc/cpuinfo; AVX512_VNNI gives the int8 peak.
  ASSERT_EQ(device.topology.cores, 4);
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("fp64"), 4 * 2 * 8 * 2 * 2593.906e6);
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("int8"), 4 * 2 * 16 * 8 * 2593.906e6);
  EXPECT_EQ(sheet->peak_flops_per_second.count("bf16"), 0u);  // Ice Lake has no AVX512_BF16
  EXPECT_NE(sheet->source.find("fp64 avx512f"), std::string::npos) << sheet->source;
}

// A root holding only proc/cpuinfo with `cpus` copies of one processor block.
std::string CpuinfoRoot(const std::string& name, const std::string& block, int cpus) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("xpuperf-spec-" + name + "-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "proc");
  std::ofstream out(root / "proc" / "cpuinfo");
  for (int i = 0; i < cpus; ++i) {
    out << "processor\t: " << i << "\ncore id\t\t: " << i << "\nphysical id\t: 0\n"
        << block << "\n\n";
  }
  return root.string();
}

TEST(CpuSpecSheetTest, Zen5SheetUsesTheHardwaresWidestIsaPerPrecision) {
  // A Ryzen 9 9950X's flags (AVX-512F, AVX512_BF16, AVX512_VNNI, AVX_VNNI; no AVX512_FP16).
  const std::string root = CpuinfoRoot(
      "zen5",
      "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 68\nmodel name\t: AMD Ryzen 9 "
      "9950X 16-Core Processor\ncpu MHz\t\t: 4300.000\nflags\t\t: fpu sse sse2 fma avx avx2 "
      "avx512f avx512dq avx512bw avx512vl avx_vnni avx512_bf16 avx512_vnni",
      2);
  Device device;
  device.model = "AMD Ryzen 9 9950X 16-Core Processor";
  device.topology.cores = 2;
  auto sheet = CpuSpecSheet(device, root);
  std::filesystem::remove_all(root);
  ASSERT_TRUE(sheet.ok()) << sheet.error().ToString();
  // Zen 5: two full-width 512-bit FMA pipes: 2 cores x 2 x 8 fp64 lanes x 2 FLOP x 4.3 GHz.
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("fp64"), 2 * 2 * 8 * 2 * 4.3e9);
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("fp32"), 2 * 2 * 16 * 2 * 4.3e9);
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("bf16"), 2 * 2 * 16 * 4 * 4.3e9);
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("int8"), 2 * 2 * 16 * 8 * 4.3e9);
  EXPECT_EQ(sheet->peak_flops_per_second.count("fp16"), 0u);
  EXPECT_NE(sheet->source.find("fp64 avx512f"), std::string::npos) << sheet->source;
  EXPECT_EQ(sheet->source.find("avx2_fma"), std::string::npos) << sheet->source;
  EXPECT_NE(sheet->peak_sources.at("bf16").find("Zen 5"), std::string::npos);
}

TEST(CpuSpecSheetTest, AMeasuredClockAboveTheStatedMaximumIsThePeakClock) {
  const Device device = TreeDevice("vm");
  // The VM's cpuinfo states 2593.906 MHz; the run measured 3.1 GHz under its own load.
  auto sheet = CpuSpecSheet(device, kTrees + "/vm", {3.1e9, "the run's measured clock"});
  ASSERT_TRUE(sheet.ok()) << sheet.error().ToString();
  EXPECT_DOUBLE_EQ(sheet->peak_flops_per_second.at("fp64"), 4 * 2 * 8 * 2 * 3.1e9);
  EXPECT_NE(sheet->source.find("peak clock 3.100 GHz from the run's measured clock"),
            std::string::npos)
      << sheet->source;
  // A lower measured clock (throttling) does not lower the spec.
  auto throttled = CpuSpecSheet(device, kTrees + "/vm", {1.2e9, "the run's measured clock"});
  ASSERT_TRUE(throttled.ok());
  EXPECT_DOUBLE_EQ(throttled->peak_flops_per_second.at("fp64"), 4 * 2 * 8 * 2 * 2593.906e6);
  EXPECT_NE(throttled->source.find("peak clock from cpufreq or /proc/cpuinfo"), std::string::npos);
}

TEST(CpuSpecSheetTest, TheRunsMeasuredClockIsTheMedianOfItsPeakFmaRecords) {
  bench::ResultDirectory run;
  EXPECT_EQ(MeasuredRunClock(run).hertz, 0);
  for (const double hertz : {3.0e9, 3.2e9, 3.1e9}) {
    bench::ResultRecord record;
    record.measurement.benchmark = "peak_fma";
    record.measurement.parameters = {{"clock", {{"measured", {{"hertz", hertz}}}}}};
    run.records.push_back(record);
  }
  bench::ResultRecord unmeasured;  // a probe that could not measure: measured is null
  unmeasured.measurement.benchmark = "peak_fma";
  unmeasured.measurement.parameters = {{"clock", {{"measured", nullptr}}}};
  run.records.push_back(unmeasured);
  bench::ResultRecord other;  // another benchmark's parameters are not read
  other.measurement.benchmark = "stream";
  other.measurement.parameters = {{"clock", {{"measured", {{"hertz", 9e9}}}}}};
  run.records.push_back(other);
  const bench::ClockFigure clock = MeasuredRunClock(run);
  EXPECT_DOUBLE_EQ(clock.hertz, 3.1e9);
  EXPECT_NE(clock.source.find("median of 3 peak_fma records"), std::string::npos) << clock.source;
}

TEST(CpuSpecSheetTest, MissingCpuinfoIsAnError) {
  Device device;
  device.model = "x";
  EXPECT_FALSE(CpuSpecSheet(device, "/no/such/root").ok());
}

}  // namespace
}  // namespace xpuperf::analysis

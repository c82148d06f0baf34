#include "xpuperf/cpu/simd_utilization.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace xpuperf::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kTrees = std::string(XPUPERF_TEST_DATA_DIR) + "/cpuinfo";

// FP_ARITH_INST_RETIRED configs, (umask << 8) | 0xC7.
constexpr uint64_t kScalarDouble = 0x01C7;
constexpr uint64_t kScalarSingle = 0x02C7;
constexpr uint64_t k128Double = 0x04C7;
constexpr uint64_t k128Single = 0x08C7;
constexpr uint64_t k256Double = 0x10C7;
constexpr uint64_t k256Single = 0x20C7;
constexpr uint64_t k512Double = 0x40C7;
constexpr uint64_t k512Single = 0x80C7;
constexpr uint64_t kAmdFlops = 0xFF03;

// Scripted counters: each (config, cpu) reads whatever the test last stored for it.
class FakePerfEventApi : public PerfEventApi {
 public:
  int OpenRawCounter(uint64_t config, int cpu) override {
    if (cpu == fail_open_cpu) return -fail_open_errno;
    const int fd = next_fd_++;
    open_[fd] = {config, cpu};
    opened[cpu].push_back(config);
    return fd;
  }
  bool ReadCounter(int fd, uint64_t* value) override {
    const auto it = open_.find(fd);
    if (fail_reads || it == open_.end()) return false;
    *value = counts[it->second];
    return true;
  }
  void Close(int fd) override {
    ASSERT_EQ(open_.erase(fd), 1u) << "closed an fd that was not open: " << fd;
  }

  size_t OpenCount() const { return open_.size(); }
  void Add(uint64_t config, int cpu, uint64_t increment) { counts[{config, cpu}] += increment; }

  std::map<std::pair<uint64_t, int>, uint64_t> counts;
  std::map<int, std::vector<uint64_t>> opened;  // cpu -> configs, in open order
  int fail_open_cpu = -1;
  int fail_open_errno = 0;
  bool fail_reads = false;

 private:
  int next_fd_ = 100;
  std::map<int, std::pair<uint64_t, int>> open_;  // fd -> (config, cpu)
};

// Ice Lake-SP (family 6 model 0x6a) with avx512f, cpuinfo_max_freq 3.4 GHz:
// peak = 2 pipes x 16 lanes x 2 (FMA) x 3.4e9 = 217.6 GFLOP/s per core.
TEST(SimdUtilizationTest, IntelAvx512OpensEightFpArithEventsPerCpu) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/intel_icx_avx512", api);
  ASSERT_TRUE(simd.ok()) << simd.error().ToString();
  const std::vector<uint64_t> all = {kScalarDouble, kScalarSingle, k128Double, k128Single,
                                     k256Double,    k256Single,    k512Double, k512Single};
  EXPECT_EQ(api.opened[0], all);
  EXPECT_EQ(api.opened[1], all);
  EXPECT_EQ(api.opened.size(), 2u);
  EXPECT_EQ((*simd)->peak_description(),
            "2 FMA pipes x 16 fp32 lanes (AVX-512) x 2 (FMA) x 3.400 GHz (cpufreq "
            "cpuinfo_max_freq) = 217.6 GFLOP/s per core, fp32; fp64 FLOPs count x2; assumes 2 FMA "
            "pipes per core (some AVX-512 SKUs have 1)");
}

TEST(SimdUtilizationTest, IntelPercentWeighsLanesAndFp64) {
  FakePerfEventApi api;
  api.Add(k512Single, 0, 123456);  // counts before Open are not part of the first sample
  api.Add(kScalarDouble, 1, 999);
  auto simd = SimdUtilization::Open(kTrees + "/intel_icx_avx512", api);
  ASSERT_TRUE(simd.ok()) << simd.error().ToString();

  // cpu0: 0.68e9 x 16 lanes = 10.88e9 FLOPs (5% of 217.6e9), plus 0.68e9 x 8 fp64 lanes x 2 =
  // 10.88e9 (5%). cpu1: 1.088e9 scalar fp64 x 2 = 2.176e9 (1%), 0.272e9 x 8 fp32 lanes (1%).
  api.Add(k512Single, 0, 680'000'000);
  api.Add(k512Double, 0, 680'000'000);
  api.Add(kScalarDouble, 1, 1'088'000'000);
  api.Add(k256Single, 1, 272'000'000);
  auto first = (*simd)->SamplePercent(1.0);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_NEAR((*first)[0], 10.0, 1e-9);
  EXPECT_NEAR((*first)[1], 2.0, 1e-9);

  // Second window, 2 s: only what happened since the first sample. cpu0: 2.72e9 x 4 (128-bit
  // fp32) = 10.88e9 over 435.2e9 = 2.5%; cpu1: 4.352e9 scalar fp32 = 1%.
  api.Add(k128Single, 0, 2'720'000'000);
  api.Add(kScalarSingle, 1, 4'352'000'000);
  auto second = (*simd)->SamplePercent(2.0);
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_NEAR((*second)[0], 2.5, 1e-9);
  EXPECT_NEAR((*second)[1], 1.0, 1e-9);

  // An idle window reads 0.
  auto idle = (*simd)->SamplePercent(1.0);
  ASSERT_TRUE(idle.ok());
  EXPECT_THAT(*idle, ElementsAre(0.0, 0.0));
}

TEST(SimdUtilizationTest, DestructionClosesEveryCounter) {
  FakePerfEventApi api;
  {
    auto simd = SimdUtilization::Open(kTrees + "/intel_icx_avx512", api);
    ASSERT_TRUE(simd.ok());
    EXPECT_EQ(api.OpenCount(), 16u);
  }
  EXPECT_EQ(api.OpenCount(), 0u);
}

// Skylake client without avx512f: no 512-bit events; no cpufreq, so the clock is the highest
// "cpu MHz" (4000): peak = 2 x 8 x 2 x 4e9 = 128 GFLOP/s.
TEST(SimdUtilizationTest, IntelAvx2SkipsThe512BitEvents) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/intel_skl_avx2", api);
  ASSERT_TRUE(simd.ok()) << simd.error().ToString();
  const std::vector<uint64_t> no512 = {kScalarDouble, kScalarSingle, k128Double,
                                       k128Single,    k256Double,    k256Single};
  EXPECT_EQ(api.opened[0], no512);
  EXPECT_EQ(api.opened[1], no512);
  EXPECT_THAT((*simd)->peak_description(), HasSubstr("8 fp32 lanes (AVX2+FMA)"));
  EXPECT_THAT((*simd)->peak_description(), HasSubstr("4.000 GHz (highest 'cpu MHz'"));
  EXPECT_THAT((*simd)->peak_description(), HasSubstr("= 128.0 GFLOP/s per core"));

  // 1.6e9 128-bit fp64 x 2 lanes x 2 = 6.4e9 over 0.5 s = 10% of 64e9.
  api.Add(k128Double, 1, 1'600'000'000);
  auto percent = (*simd)->SamplePercent(0.5);
  ASSERT_TRUE(percent.ok());
  EXPECT_NEAR((*percent)[0], 0.0, 1e-12);
  EXPECT_NEAR((*percent)[1], 10.0, 1e-9);
}

// EPYC 7763 (Zen 3, family 0x19): one event, config 0xff03, FLOPs counted directly;
// peak = 2 x 8 x 2 x 3.5e9 = 112 GFLOP/s.
TEST(SimdUtilizationTest, AmdZenCountsRetiredSseAvxFlops) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/amd_zen3", api);
  ASSERT_TRUE(simd.ok()) << simd.error().ToString();
  EXPECT_THAT(api.opened[0], ElementsAre(kAmdFlops));
  EXPECT_THAT(api.opened[1], ElementsAre(kAmdFlops));
  EXPECT_THAT((*simd)->peak_description(), HasSubstr("= 112.0 GFLOP/s per core"));
  EXPECT_THAT((*simd)->peak_description(), HasSubstr("does not split"));

  api.Add(kAmdFlops, 0, 11'200'000'000);  // 10% of 112e9 in 1 s
  api.Add(kAmdFlops, 1, 56'000'000'000);  // 50%
  auto percent = (*simd)->SamplePercent(1.0);
  ASSERT_TRUE(percent.ok());
  EXPECT_NEAR((*percent)[0], 10.0, 1e-9);
  EXPECT_NEAR((*percent)[1], 50.0, 1e-9);
}

TEST(SimdUtilizationTest, VmWithoutPmuIsUnsupportedWithTheReason) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/vm_no_pmu", api);
  ASSERT_FALSE(simd.ok());
  EXPECT_EQ(simd.error().code, ErrorCode::kUnsupported);
  EXPECT_THAT(simd.error().message,
              HasSubstr("unsupported: no CPU PMU exposed (" + kTrees +
                        "/vm_no_pmu/sys/bus/event_source/devices/cpu missing; typical in VMs)"));
  EXPECT_THAT(simd.error().message, HasSubstr("'hypervisor' cpuinfo flag"));
  EXPECT_TRUE(api.opened.empty());
}

TEST(SimdUtilizationTest, OpenFailureNamesErrnoAndParanoidAndClosesWhatItOpened) {
  FakePerfEventApi api;
  api.fail_open_cpu = 1;
  api.fail_open_errno = EACCES;
  auto simd = SimdUtilization::Open(kTrees + "/intel_icx_avx512", api);
  ASSERT_FALSE(simd.ok());
  EXPECT_EQ(simd.error().code, ErrorCode::kUnsupported);
  EXPECT_THAT(simd.error().message,
              HasSubstr("unsupported: perf_event_open(FP_ARITH_INST_RETIRED.SCALAR_DOUBLE) failed "
                        "on cpu 1: Permission denied (perf_event_paranoid=2"));
  EXPECT_THAT(simd.error().message, HasSubstr("CAP_PERFMON"));
  EXPECT_EQ(api.opened[0].size(), 8u);  // all of cpu0 had been opened...
  EXPECT_EQ(api.OpenCount(), 0u);       // ...and closed again
}

TEST(SimdUtilizationTest, ReadFailureIsAnErrorAndKeepsTheBaseline) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/amd_zen3", api);
  ASSERT_TRUE(simd.ok());
  api.Add(kAmdFlops, 0, 11'200'000'000);
  api.fail_reads = true;
  auto failed = (*simd)->SamplePercent(1.0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kIo);
  EXPECT_THAT(failed.error().message, HasSubstr("RETIRED_SSE_AVX_FLOPS on cpu 0"));
  api.fail_reads = false;
  auto percent = (*simd)->SamplePercent(2.0);  // both windows together: 1 s of work in 2 s
  ASSERT_TRUE(percent.ok());
  EXPECT_NEAR((*percent)[0], 5.0, 1e-9);
}

TEST(SimdUtilizationTest, ElapsedMustBePositive) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/amd_zen3", api);
  ASSERT_TRUE(simd.ok());
  for (double elapsed : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity()}) {
    auto percent = (*simd)->SamplePercent(elapsed);
    ASSERT_FALSE(percent.ok()) << elapsed;
    EXPECT_EQ(percent.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST(SimdUtilizationTest, ArmIsUnsupportedNamingTheVendor) {
  FakePerfEventApi api;
  auto simd = SimdUtilization::Open(kTrees + "/arm64_neoverse_n1", api);
  ASSERT_FALSE(simd.ok());
  EXPECT_EQ(simd.error().code, ErrorCode::kUnsupported);
  EXPECT_THAT(simd.error().message, HasSubstr("CPU vendor 'ARM'"));
}

// A temporary root with the given cpuinfo, a core PMU and optionally cpuinfo_max_freq (kHz).
class TempRoot {
 public:
  TempRoot(const std::string& cpuinfo, const std::string& max_freq_khz) {
    path_ = std::filesystem::temp_directory_path() /
            ("xpuperf_simd_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    Write("proc/cpuinfo", cpuinfo);
    Write("sys/bus/event_source/devices/cpu/type", "4\n");
    if (!max_freq_khz.empty()) {
      Write("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", max_freq_khz + "\n");
    }
  }
  ~TempRoot() { std::filesystem::remove_all(path_); }
  std::string Path() const { return path_.string(); }

 private:
  void Write(const std::string& relative, const std::string& text) {
    const auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  std::filesystem::path path_;
};

std::string X86Cpuinfo(const std::string& vendor, int family, int model, const std::string& mhz,
                       const std::string& flags) {
  std::string text = "processor\t: 0\nvendor_id\t: " + vendor +
                     "\ncpu family\t: " + std::to_string(family) +
                     "\nmodel\t\t: " + std::to_string(model) + "\n";
  if (!mhz.empty()) text += "cpu MHz\t\t: " + mhz + "\n";
  return text + "flags\t\t: " + flags + "\n\n";
}

TEST(SimdPlanTest, Zen4RunsAvx512OnA256BitDatapath) {
  TempRoot root(X86Cpuinfo("AuthenticAMD", 25, 17, "2400.000", "sse2 avx fma avx2 avx512f"),
                "3700000");
  auto plan = PlanFpCounters(root.Path());
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_DOUBLE_EQ(plan->peak_fp32_flops_per_second, 2.0 * 8 * 2 * 3.7e9);
  EXPECT_THAT(plan->peak_description, HasSubstr("(AVX-512 on a 256-bit datapath)"));
}

TEST(SimdPlanTest, Zen1RunsAvx2OnA128BitDatapath) {
  TempRoot root(X86Cpuinfo("AuthenticAMD", 23, 1, "2000.000", "sse2 avx fma avx2"), "");
  auto plan = PlanFpCounters(root.Path());
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_DOUBLE_EQ(plan->peak_fp32_flops_per_second, 2.0 * 4 * 2 * 2.0e9);
  EXPECT_THAT(plan->peak_description, HasSubstr("(AVX2+FMA on a 128-bit datapath)"));
}

TEST(SimdPlanTest, AvxWithoutFmaHasNoFmaFactor) {
  // Broadwell always has FMA; a cpuinfo that hides it (some hypervisors mask it) must not be
  // credited with FMA throughput.
  TempRoot root(X86Cpuinfo("GenuineIntel", 6, 0x4F, "2000.000", "sse2 avx"), "");
  auto plan = PlanFpCounters(root.Path());
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_DOUBLE_EQ(plan->peak_fp32_flops_per_second, 2.0 * 8 * 2.0e9);
  EXPECT_THAT(plan->peak_description, HasSubstr("2 FP pipes (add + mul) x 8 fp32 lanes (AVX) x"));
}

TEST(SimdPlanTest, IntelWithoutFpArithIsUnsupportedNamingTheModel) {
  TempRoot root(X86Cpuinfo("GenuineIntel", 6, 0x3F, "2300.000", "sse2 avx fma avx2"), "");
  auto plan = PlanFpCounters(root.Path());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kUnsupported);
  EXPECT_THAT(plan.error().message, HasSubstr("Intel family 6 model 0x3f"));
}

TEST(SimdPlanTest, PreZenAmdIsUnsupported) {
  TempRoot root(X86Cpuinfo("AuthenticAMD", 21, 2, "3500.000", "sse2 avx fma"), "");
  auto plan = PlanFpCounters(root.Path());
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error().message, HasSubstr("AMD family 0x15 predates RETIRED_SSE_AVX_FLOPS"));
}

TEST(SimdPlanTest, UnknownClockIsUnsupported) {
  TempRoot root(X86Cpuinfo("GenuineIntel", 6, 0x55, "", "sse2 avx fma avx2 avx512f"), "");
  auto plan = PlanFpCounters(root.Path());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kUnsupported);
  EXPECT_THAT(plan.error().message, HasSubstr("CPU clock unknown"));
}

TEST(SimdPlanTest, MissingCpuinfoIsAnError) {
  auto plan = PlanFpCounters(kTrees + "/does_not_exist");
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.error().message, HasSubstr("does_not_exist/proc/cpuinfo"));
}

// The real system: a VM without a PMU (this build machine) says why; a host with one counts.
TEST(SimdUtilizationTest, LiveMachine) {
  auto simd = SimdUtilization::Open("/", PerfEventApi::System());
  if (!simd.ok()) {
    EXPECT_FALSE(simd.error().message.empty());
    EXPECT_EQ(simd.error().code, ErrorCode::kUnsupported) << simd.error().ToString();
    return;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto percent = (*simd)->SamplePercent(0.05);
  ASSERT_TRUE(percent.ok()) << percent.error().ToString();
  EXPECT_FALSE(percent->empty());
  for (double value : *percent) EXPECT_GE(value, 0.0);
  EXPECT_FALSE((*simd)->peak_description().empty());
}

}  // namespace
}  // namespace xpuperf::cpu

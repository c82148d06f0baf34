// Nominal peaks per microarchitecture (lanes x FMA units x clock, each factor's source), the
// clocks they use and the >105% check, on recorded cpuinfo of CPUs this machine is not.
#include "xpuperf/bench/nominal_peak.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace xpuperf::bench {
namespace {

CpuInfo Fixture(const std::string& name) {
  std::ifstream in(std::string(XPUPERF_TEST_DATA_DIR) + "/cpuinfo/" + name + ".txt");
  std::stringstream text;
  text << in.rdbuf();
  auto info = ParseCpuInfo(text.str());
  EXPECT_TRUE(info.ok()) << name;
  return info.ok() ? *info : CpuInfo{};
}

const ClockFigure kThreeGhz{3e9, "test clock"};

double PerCoreCycle(const std::string& fixture, PeakKernelId id) {
  return ComputeNominalPeak(Fixture(fixture), 1, PeakKernelById(id), kThreeGhz).per_core_per_cycle;
}

TEST(NominalPeakTest, Fp64FlopsPerCyclePerMicroarchitecture) {
  // benchmarks-and-roofline.md section 3: Zen 2/3 16, Zen 4 16 (512-bit in two halves), Zen 5 32,
  // Intel with two AVX-512 FMA units 32; one-unit Xeon Silver 16.
  EXPECT_EQ(PerCoreCycle("zen3-epyc-milan-vm", PeakKernelId::kAvx2Fp64), 16);
  EXPECT_EQ(PerCoreCycle("zen4-epyc-9654", PeakKernelId::kAvx512Fp64), 16);
  EXPECT_EQ(PerCoreCycle("zen4-epyc-9654", PeakKernelId::kAvx2Fp64), 16);
  EXPECT_EQ(PerCoreCycle("zen5-ryzen-9950x", PeakKernelId::kAvx512Fp64), 32);
  EXPECT_EQ(PerCoreCycle("sapphire-rapids-8480", PeakKernelId::kAvx512Fp64), 32);
  EXPECT_EQ(PerCoreCycle("skylake-sp-silver-4114", PeakKernelId::kAvx512Fp64), 16);
  EXPECT_EQ(PerCoreCycle("skylake-sp-silver-4114", PeakKernelId::kAvx2Fp64), 16);
  // fp32 doubles them; bf16 dot products 2 MACs per fp32 lane; int8 4 MACs per int32 lane.
  EXPECT_EQ(PerCoreCycle("zen5-ryzen-9950x", PeakKernelId::kAvx512Fp32), 64);
  EXPECT_EQ(PerCoreCycle("zen5-ryzen-9950x", PeakKernelId::kAvx512Bf16), 128);
  EXPECT_EQ(PerCoreCycle("zen4-epyc-9654", PeakKernelId::kAvx512Bf16), 64);
  EXPECT_EQ(PerCoreCycle("sapphire-rapids-8480", PeakKernelId::kAvx512VnniInt8), 256);
  EXPECT_EQ(PerCoreCycle("sapphire-rapids-8480", PeakKernelId::kAvx512Fp16), 128);
  // AMX: 1024 bf16 FLOP and 2048 int8 OP per cycle per core (16 x 16 x 32 MACs per 16 cycles).
  EXPECT_EQ(PerCoreCycle("sapphire-rapids-8480", PeakKernelId::kAmxBf16), 1024);
  EXPECT_EQ(PerCoreCycle("sapphire-rapids-8480", PeakKernelId::kAmxInt8), 2048);
  // AVX2 int8: two multiply instructions per step on the two pipes.
  EXPECT_EQ(PerCoreCycle("zen3-epyc-milan-vm", PeakKernelId::kAvx2Int8), 64);
}

TEST(NominalPeakTest, DescriptionNamesEveryFactorAndItsSource) {
  const NominalPeak zen4 =
      ComputeNominalPeak(Fixture("zen4-epyc-9654"), 96, PeakKernelById(PeakKernelId::kAvx512Fp64),
                         {2.4e9, "cpufreq cpuinfo_max_freq"});
  EXPECT_DOUBLE_EQ(zen4.flops_per_second, 96 * 16 * 2.4e9);
  EXPECT_NE(zen4.description.find("96 cores"), std::string::npos) << zen4.description;
  EXPECT_NE(zen4.description.find("Zen 4"), std::string::npos) << zen4.description;
  EXPECT_NE(zen4.description.find("512-bit ops in two halves"), std::string::npos);
  EXPECT_NE(zen4.description.find("2.400 GHz (cpufreq cpuinfo_max_freq)"), std::string::npos);
  const NominalPeak silver = ComputeNominalPeak(
      Fixture("skylake-sp-silver-4114"), 10, PeakKernelById(PeakKernelId::kAvx512Fp64), kThreeGhz);
  EXPECT_NE(silver.description.find("one 512-bit FMA unit"), std::string::npos)
      << silver.description;
  const NominalPeak int8 = ComputeNominalPeak(
      Fixture("zen5-ryzen-9950x"), 16, PeakKernelById(PeakKernelId::kAvx512VnniInt8), kThreeGhz);
  EXPECT_NE(int8.description.find("GOP/s"), std::string::npos) << int8.description;
  EXPECT_EQ(ComputeNominalPeak({}, 1, PeakKernelById(PeakKernelId::kAvx2Fp64), kThreeGhz)
                .flops_per_second,
            0);
  EXPECT_EQ(ComputeNominalPeak(Fixture("zen4-epyc-9654"), 1,
                               PeakKernelById(PeakKernelId::kAvx2Fp64), ClockFigure{})
                .flops_per_second,
            0);
}

TEST(NominalPeakTest, ClocksFromCpufreqTheModelNameOrCpuinfo) {
  const CoreClocks silver = ReadCoreClocks(Fixture("skylake-sp-silver-4114"), "/no/such/root");
  EXPECT_DOUBLE_EQ(silver.base.hertz, 2.2e9);
  EXPECT_EQ(silver.base.source, "the model name's rated clock");
  EXPECT_DOUBLE_EQ(silver.maximum.hertz, 2.2e9);
  EXPECT_EQ(&silver.Best(), &silver.maximum);
  CoreClocks measured = silver;
  measured.measured = {3.1e9, "measured"};
  EXPECT_EQ(measured.Best().hertz, 3.1e9);
  // AMD model names carry no clock.
  EXPECT_EQ(ReadCoreClocks(Fixture("zen4-epyc-9654"), "/no/such/root").base.hertz, 0);
}

TEST(NominalPeakTest, AboveOneHundredFivePercentNamesTheSuspectFactor) {
  NominalPeak nominal;
  nominal.flops_per_second = 100e9;
  nominal.per_core_per_cycle = 16;
  nominal.clock_hertz = 2.6e9;
  nominal.cores = 2;
  EXPECT_EQ(NominalSuspect(105e9, nominal, false), "");
  // The case: 163% of a nominal computed at the 2.6 GHz cpuinfo reports.
  const std::string clock = NominalSuspect(163e9, nominal, false);
  EXPECT_NE(clock.find("163% of nominal"), std::string::npos) << clock;
  EXPECT_NE(clock.find("suspect the clock"), std::string::npos) << clock;
  const std::string units = NominalSuspect(163e9, nominal, true);
  EXPECT_NE(units.find("suspect the pipes x lanes factor"), std::string::npos) << units;
}

TEST(NominalPeakTest, AttachRecordsClocksAndFlags) {
  Measurement m;
  m.value = 500;  // GFLOP/s
  m.unit = "GFLOP/s";
  CoreClocks clocks;
  clocks.maximum = {2.6e9, "highest 'cpu MHz'"};
  Device device;
  device.topology.cores = 2;
  AttachNominalPeak(m, Fixture("zen5-ryzen-9950x"), &device, 4,
                    PeakKernelById(PeakKernelId::kAvx512Fp64), clocks);
  ASSERT_TRUE(m.nominal_peak.has_value());
  EXPECT_DOUBLE_EQ(*m.nominal_peak, 2 * 32 * 2.6);  // 2 cores (topology caps the 4 threads)
  EXPECT_TRUE(m.parameters["clock"]["measured"].is_null());
  EXPECT_EQ(m.parameters["clock"]["maximum"]["hertz"], 2.6e9);
  EXPECT_NE(m.parameters["nominal_suspect"].get<std::string>().find("suspect the clock"),
            std::string::npos);
}

TEST(NominalPeakTest, DependentAddChainMeasuresAPlausibleClock) {
  const ClockProbe probe = ProbeCoreClock(20'000'000);
  EXPECT_EQ(probe.adds, 20'000'000);
  // One register-to-register add per cycle: between 0.5 and 7 GHz on any x86-64 core that runs
  // this test (an immediate-add chain ran at 15 G adds/s on a core that folds them at rename).
  EXPECT_TRUE(probe.problem.empty()) << probe.problem;
  EXPECT_GT(probe.core_hertz, 0.5e9);
  EXPECT_LT(probe.core_hertz, 7e9);
  EXPECT_GT(probe.tsc_hertz, 0.1e9);
}

TEST(NominalPeakTest, AChainFasterThanTheClockCanRunIsNotBelieved) {
  // 20 M adds in 1.32 ms of CPU time against a 3.0 GHz TSC: 15.1 G adds/s, 5x the TSC.
  const ClockProbe folded = ClockProbeFromCounts(20'000'000, 1.32e-3, 3'960'000, 1.32e-3);
  EXPECT_EQ(folded.core_hertz, 0);
  EXPECT_NE(folded.problem.find("faster than one per cycle"), std::string::npos) << folded.problem;
  // A 6.0 GHz turbo over a 3.0 GHz TSC (2x) is believed.
  const ClockProbe turbo = ClockProbeFromCounts(6'000'000, 1e-3, 3'000'000, 1e-3);
  EXPECT_DOUBLE_EQ(turbo.core_hertz, 6e9);
  EXPECT_TRUE(turbo.problem.empty());
  EXPECT_DOUBLE_EQ(turbo.tsc_hertz, 3e9);
  // A 3.13 GHz chain over a 2.445 GHz TSC whose thread was preempted for 5.8 ms outside the
  // chain, between the reads of the steady clock and the TSC (seen in CI): the wall interval is
  // 10x the chain, the TSC's rate over it looks like 0.30 GHz, but the ticks the chain took say
  // 1.28 adds per tick, and the clock is believed.
  const ClockProbe preempted = ClockProbeFromCounts(2'000'000, 2e6 / 3.13e9, 1'562'300, 6.4e-3);
  EXPECT_TRUE(preempted.problem.empty()) << preempted.problem;
  EXPECT_NEAR(preempted.core_hertz, 3.13e9, 1e6);
  const ClockProbe empty = ClockProbeFromCounts(64, 0, 0, 0);
  EXPECT_EQ(empty.core_hertz, 0);
  EXPECT_FALSE(empty.problem.empty());
}

TEST(NominalPeakTest, AnUnmeasurableClockSaysWhyAndFallsBackToTheMaximum) {
  Measurement m;
  m.value = 100;
  m.unit = "GFLOP/s";
  CoreClocks clocks;
  clocks.maximum = {2.6e9, "highest 'cpu MHz'"};
  clocks.measured = {0, "not measured: the dependent add chain ran faster than one per cycle"};
  Device device;
  device.topology.cores = 2;
  AttachNominalPeak(m, Fixture("zen5-ryzen-9950x"), &device, 2,
                    PeakKernelById(PeakKernelId::kAvx512Fp64), clocks);
  EXPECT_TRUE(m.parameters["clock"]["measured"].is_null());
  EXPECT_EQ(m.parameters["clock"]["measured_unavailable"], clocks.measured.source);
  EXPECT_EQ(m.parameters["clock"]["used"], "highest 'cpu MHz'");
}

}  // namespace
}  // namespace xpuperf::bench

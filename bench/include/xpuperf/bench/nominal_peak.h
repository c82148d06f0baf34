// The nominal ("theoretical") FP peak of the CPU, with the source of every factor, reported next to
// the measured peak. A measured value above it means an assumption was wrong (turbo, unit count).
#pragma once

#include <string>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {

struct NominalPeak {
  double flops_per_second = 0;  // 0 when unknown
  std::string description;      // every factor and where it came from, or why it is unknown
};

// cores x FMA pipes x SIMD lanes x 2 x frequency for the given kernel variant. Cores: `cores` (the
// caller passes the physical cores the benchmark's threads occupy). Pipes: 2, as on every AVX2 core
// since Haswell and Zen 2 (an assumption, not read from the CPU). Lanes: the variant's vector
// width, halved on AMD Zen/Zen+ (family 0x17, model < 0x30) whose datapath is 128 bits. Frequency:
// cpufreq cpuinfo_max_freq under root when present, else the highest "cpu MHz" in cpuinfo.
NominalPeak ComputeNominalPeak(const CpuInfo& info, const std::string& root, int cores,
                               Precision precision, SimdLevel level);

// Sets m.nominal_peak (GFLOP/s) and m.nominal_source for a run on `threads` threads: the cores are
// those threads, capped by the device's physical cores when its topology is known.
void AttachNominalPeak(Measurement& m, const CpuInfo& info, const std::string& root,
                       const Device* device, int threads, Precision precision, SimdLevel level);

}  // namespace xpuperf::bench

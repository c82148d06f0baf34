// The nominal ("theoretical") peak of a CPU kernel, with the source of every factor, reported next
// to the measured peak: cores x vector pipes x lanes x operations per lane x clock. A measured
// value above 105% of it means a factor was wrong, and the result says which one is suspect.
#pragma once

#include <string>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/bench/core_clock.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {

// How many of a kernel's instructions a core issues per cycle, from its microarchitecture.
struct VectorDatapath {
  std::string microarchitecture;  // "Zen 4", "Skylake-SP (one 512-bit FMA unit)", "unknown"
  int pipes = 2;                  // units that execute the kernel's instruction
  double lanes = 0;               // accumulator lanes completed per pipe per cycle
  std::string source;             // why: "Zen 4 executes 512-bit ops on 256-bit units"
};

// Zen/Zen+ (family 0x17, model < 0x30) split 256-bit ops into 128-bit halves; Zen 2/3 have two
// 256-bit FMA pipes; Zen 4 (family 0x19 with AVX-512) runs 512-bit ops in two halves; Zen 5
// (family 0x1a) has full 512-bit pipes except on the mobile parts (models 0x20-0x2f, 0x60-0x7f);
// Intel cores have two FMA units except the Skylake-SP Xeon Bronze/Silver/Gold 5xxx and the
// client Ice Lake/Tiger Lake/Rocket Lake parts, which have one for 512-bit ops. The AVX2 int8
// sequence issues 2 multiply instructions per step, so it completes one step per cycle per 2 pipes.
// AMX: one TMUL unit, one 16 x 16 tile dot product per 16 cycles (1024 bf16 FLOP per cycle).
VectorDatapath DatapathFor(const LogicalCpuInfo& cpu, const PeakKernel& kernel);

struct NominalPeak {
  double flops_per_second = 0;  // FLOP/s (OP/s for int8); 0 when unknown
  std::string description;      // every factor and where it came from, or why it is unknown
  double per_core_per_cycle = 0;
  double clock_hertz = 0;
  int cores = 0;
};

// cores x pipes x lanes x ops per lane x clock (the figure `clock` names).
NominalPeak ComputeNominalPeak(const CpuInfo& info, int cores, const PeakKernel& kernel,
                               const ClockFigure& clock);

// "" when measured <= 1.05 x nominal; otherwise which factor is suspect: with a measured clock
// the per-cycle rate (pipes or lanes), else the clock (turbo above the figure used).
std::string NominalSuspect(double measured_per_second, const NominalPeak& nominal,
                           bool clock_measured);

// Sets m.nominal_peak (in m.unit's 1e9 scale) and m.nominal_source for a run on `threads` threads
// (their physical cores, capped by the device's topology when known), m.parameters["clock"]
// (base, maximum, measured) and, above 105%, m.parameters["nominal_suspect"].
void AttachNominalPeak(Measurement& m, const CpuInfo& info, const Device* device, int threads,
                       const PeakKernel& kernel, const CoreClocks& clocks);

}  // namespace xpuperf::bench

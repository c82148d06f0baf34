// The peak compute kernels: independent chains of FMA or dot-product instructions in vector
// registers, one variant per (ISA, precision), chosen at run time from the CPU's features. Every
// variant runs the same loop (peak_chain_loop.h) and is verified against a scalar model of its
// instruction (peak_models.h). Functions are thread-safe; a kernel call touches only its output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/isa.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

enum class PeakKernelId {
  kSse2Fp64,
  kSse2Fp32,
  kAvx2Fp64,
  kAvx2Fp32,
  kAvx2Int8,
  kAvxVnniInt8,
  kAvx512Fp64,
  kAvx512Fp32,
  kAvx512Bf16,
  kAvx512VnniInt8,
  kAvx512Fp16,
  kAmxBf16,
  kAmxInt8,
};

struct PeakKernel {
  PeakKernelId id;
  Precision precision;
  std::string_view isa;          // "avx512_bf16": parameters["simd"] and the sweep's "isa"
  std::string_view instruction;  // "vdpbf16ps zmm"
  int vector_bits = 0;           // register width: 128, 256, 512 (an AMX tile: 8192)
  int lanes = 0;                 // accumulator elements per register (per tile: 256)
  // Per step and accumulator element: 2 (one FMA), 4 (two bf16 MACs), 8 (four int8 MACs); AMX
  // tiles 64 (32 bf16 MACs) and 128 (64 int8 MACs).
  int ops_per_lane = 0;
  int chains = 0;  // independent accumulator registers (tiles)
  std::vector<IsaExtension> needs;
};

// Every kernel, per precision from the widest to the narrowest.
const std::vector<PeakKernel>& PeakKernels();
const PeakKernel& PeakKernelById(PeakKernelId id);

// Ok, or kUnsupported "unsupported: CPU lacks avx512_bf16" naming the most specific missing
// extension (the last of `needs`).
Status PeakKernelSupported(const PeakKernel& kernel, const IsaFeatures& features);
// The widest supported kernel of a precision; `isa` ("" = widest) picks one by name.
// kUnsupported naming what each candidate lacks, kInvalidArgument for an unknown isa.
Result<const PeakKernel*> SelectPeakKernel(Precision precision, const IsaFeatures& features,
                                           std::string_view isa = {});

// Values one call writes (chains x lanes) and operations it performs (FLOPs, or int8 OPs: a
// multiply and an add per MAC).
int PeakOutputCount(const PeakKernel& kernel);
double PeakOpsPerCall(const PeakKernel& kernel, int64_t iterations);
// The most iterations whose result stays exact (every value a multiple of its step below 2, or
// far from int32 overflow), so any order of rounding gives the same answer.
int64_t MaxExactPeakIterations(const PeakKernel& kernel);

// Runs `iterations` dependent steps of every chain (multiplier must be 1; it is passed at run time
// so the compiler cannot fold the multiply). out: PeakOutputCount values, as doubles. The caller
// checks PeakKernelSupported first (an unsupported instruction faults), against
// UsableHostFeatures for the AMX kernels (which need the tile permission).
void RunPeakKernel(const PeakKernel& kernel, int64_t iterations, double multiplier,
                   std::span<double> out);
// The value every lane of chain c holds after `iterations` steps, from the scalar model.
std::vector<double> ModelPeakChains(const PeakKernel& kernel, int64_t iterations,
                                    double multiplier);
// Checks consecutive per-thread outputs against the model; kInternal naming the first wrong value
// and how many are wrong.
Status VerifyPeakKernel(const PeakKernel& kernel, int64_t iterations, double multiplier,
                        std::span<const double> values);

}  // namespace xpuperf::bench

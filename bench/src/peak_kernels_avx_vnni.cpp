// AVX_VNNI (VEX-encoded vpdpbusd, 256-bit; Alder Lake, Zen 5), built with -mavx2 -mavxvnni and no
// AVX-512 flag, so no EVEX encoding or ymm16-31 can appear on CPUs that have AVX_VNNI alone.
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct AvxVnniInt8 {
  using Vec = __m256i;
  using Operand = __m256i;
  using Out = int32_t;
  static constexpr int kLanes = 8, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits)));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm256_dpbusd_avx_epi32(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v); }
};

}  // namespace

void PeakChainsAvxVnniInt8(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<AvxVnniInt8>(iterations, ops, out);
}

}  // namespace xpuperf::bench

// Baseline x86-64 variant: SSE2 multiply + add (no FMA), 128-bit. Built without extra ISA flags.
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct Sse2Fp64 {
  using Vec = __m128d;
  using Operand = __m128d;
  using Out = double;
  static constexpr int kLanes = 2, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm_castsi128_pd(_mm_set1_epi64x(static_cast<long long>(bits)));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm_add_pd(_mm_mul_pd(acc, a), b); }
  static void Store(Out* out, Vec v) { _mm_storeu_pd(out, v); }
};

struct Sse2Fp32 {
  using Vec = __m128;
  using Operand = __m128;
  using Out = float;
  static constexpr int kLanes = 4, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm_castsi128_ps(_mm_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits))));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm_add_ps(_mm_mul_ps(acc, a), b); }
  static void Store(Out* out, Vec v) { _mm_storeu_ps(out, v); }
};

}  // namespace

void PeakChainsSse2Fp64(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Sse2Fp64>(iterations, ops, out);
}
void PeakChainsSse2Fp32(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Sse2Fp32>(iterations, ops, out);
}

}  // namespace xpuperf::bench

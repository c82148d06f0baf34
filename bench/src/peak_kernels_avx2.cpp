// AVX2 + FMA variants, 256-bit (built with -mavx2 -mfma; see peak_chain_loop.h for why this file
// includes nothing else). int8 has no dot-product instruction in AVX2: vpmaddubsw (u8 x s8 pairs
// into saturated int16) + vpmaddwd (pairs into int32) + vpaddd, as oneDNN's AVX2 int8 kernels do.
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct Avx2Fp64 {
  using Vec = __m256d;
  using Operand = __m256d;
  using Out = double;
  static constexpr int kLanes = 4, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<long long>(bits)));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm256_fmadd_pd(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm256_storeu_pd(out, v); }
};

struct Avx2Fp32 {
  using Vec = __m256;
  using Operand = __m256;
  using Out = float;
  static constexpr int kLanes = 8, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits))));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm256_fmadd_ps(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm256_storeu_ps(out, v); }
};

struct Avx2Int8 {
  using Vec = __m256i;
  using Operand = __m256i;
  using Out = int32_t;
  // The chain's latency is vpaddd's single cycle, so 4 chains keep the multiply ports busy; with
  // more, the temporaries of 3 instructions per step spill accumulators to the stack.
  static constexpr int kLanes = 8, kChains = kAvx2Int8PeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits)));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) {
    // The products depend on nothing in the loop; the empty asm hides that, or the compiler hoists
    // them and the loop times vpaddd alone.
    __asm__ volatile("" : "+x"(a));
    const __m256i pairs = _mm256_maddubs_epi16(a, b);
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
  static void Store(Out* out, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v); }
};

}  // namespace

void PeakChainsAvx2Fp64(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx2Fp64>(iterations, ops, out);
}
void PeakChainsAvx2Fp32(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx2Fp32>(iterations, ops, out);
}
void PeakChainsAvx2Int8(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx2Int8>(iterations, ops, out);
}

}  // namespace xpuperf::bench

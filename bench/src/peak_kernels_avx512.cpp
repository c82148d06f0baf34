// AVX-512F fp64/fp32 FMA, 512-bit (built with -mavx512f).
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct Avx512Fp64 {
  using Vec = __m512d;
  using Operand = __m512d;
  using Out = double;
  static constexpr int kLanes = 8, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm512_castsi512_pd(_mm512_set1_epi64(static_cast<long long>(bits)));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm512_fmadd_pd(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm512_storeu_pd(out, v); }
};

struct Avx512Fp32 {
  using Vec = __m512;
  using Operand = __m512;
  using Out = float;
  static constexpr int kLanes = 16, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits))));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm512_fmadd_ps(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm512_storeu_ps(out, v); }
};

}  // namespace

void PeakChainsAvx512Fp64(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx512Fp64>(iterations, ops, out);
}
void PeakChainsAvx512Fp32(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx512Fp32>(iterations, ops, out);
}

}  // namespace xpuperf::bench

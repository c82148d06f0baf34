// AVX512_BF16 vdpbf16ps: each fp32 lane += a.bf16[2i] b.bf16[2i] + a.bf16[2i+1] b.bf16[2i+1]
// (built with -mavx512f -mavx512bf16).
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct Avx512Bf16 {
  using Vec = __m512;
  using Operand = __m512bh;
  using Out = float;
  static constexpr int kLanes = 16, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits))));
  }
  // bits = one bf16 pair: element 2i in the low half, 2i+1 in the high half.
  static Operand SplatOperand(uint64_t bits) {
    return reinterpret_cast<Operand>(
        _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits))));
  }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm512_dpbf16_ps(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm512_storeu_ps(out, v); }
};

}  // namespace

void PeakChainsAvx512Bf16(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx512Bf16>(iterations, ops, out);
}

}  // namespace xpuperf::bench

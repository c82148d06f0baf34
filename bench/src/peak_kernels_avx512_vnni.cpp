// AVX512_VNNI vpdpbusd zmm: each int32 lane += sum of 4 u8 x s8 products, wrapping (built with
// -mavx512f -mavx512vnni).
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct Avx512VnniInt8 {
  using Vec = __m512i;
  using Operand = __m512i;
  using Out = int32_t;
  static constexpr int kLanes = 16, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits)));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm512_dpbusd_epi32(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm512_storeu_si512(out, v); }
};

}  // namespace

void PeakChainsAvx512VnniInt8(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx512VnniInt8>(iterations, ops, out);
}

}  // namespace xpuperf::bench

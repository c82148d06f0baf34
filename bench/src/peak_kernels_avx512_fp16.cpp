// AVX512_FP16 vfmadd231ph zmm: 32 fp16 lanes (built with -mavx512f -mavx512bw -mavx512fp16).
#include <immintrin.h>

#include "peak_chain_loop.h"

namespace xpuperf::bench {
namespace {

struct Avx512Fp16 {
  using Vec = __m512h;
  using Operand = __m512h;
  using Out = uint16_t;  // fp16 bit patterns; peak_models.h converts them
  static constexpr int kLanes = 32, kChains = kPeakChains;
  static Vec Splat(uint64_t bits) {
    return _mm512_castsi512_ph(_mm512_set1_epi16(static_cast<short>(static_cast<uint16_t>(bits))));
  }
  static Operand SplatOperand(uint64_t bits) { return Splat(bits); }
  static Vec Step(Vec acc, Operand a, Operand b) { return _mm512_fmadd_ph(acc, a, b); }
  static void Store(Out* out, Vec v) { _mm512_storeu_si512(out, _mm512_castph_si512(v)); }
};

}  // namespace

void PeakChainsAvx512Fp16(int64_t iterations, const PeakOperands& ops, void* out) {
  RunChainLoop<Avx512Fp16>(iterations, ops, out);
}

}  // namespace xpuperf::bench

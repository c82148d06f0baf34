// The bf16 flash-attention block with AVX512_BF16: vdpbf16ps zmm, 16 fp32 lanes per instruction,
// each adding two bf16 products (built with -mavx512f -mavx512bf16; run only where CPUID has both).
#include <immintrin.h>

#include "flash_attention_bf16_kernel.h"

namespace xpuperf::bench {
namespace {

struct Avx512Bf16Lanes {
  using Vec = __m512;
  using Pairs = __m512bh;
  static Vec Zero() { return _mm512_setzero_ps(); }
  static Pairs Load(const uint32_t* pairs) {
    return reinterpret_cast<Pairs>(_mm512_loadu_si512(pairs));
  }
  static Pairs Broadcast(uint32_t pair) {
    return reinterpret_cast<Pairs>(_mm512_set1_epi32(static_cast<int>(pair)));
  }
  static Vec Dot(Vec acc, Pairs a, Pairs b) { return _mm512_dpbf16_ps(acc, a, b); }
  static void AddStore(float* c, Vec v) {
    _mm512_storeu_ps(c, _mm512_add_ps(_mm512_loadu_ps(c), v));
  }
};

}  // namespace

void FlashBf16BlockAvx512(const Bf16BlockShape& shape, const uint16_t* q, const uint16_t* k,
                          const uint16_t* v, float* o, int64_t batch_head, int64_t block,
                          const Bf16Scratch& scratch) {
  FlashBlockBf16<Avx512Bf16Lanes>(shape, q, k, v, o, batch_head, block, scratch);
}

}  // namespace xpuperf::bench

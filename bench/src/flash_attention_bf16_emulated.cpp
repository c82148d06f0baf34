// The bf16 flash-attention block with vdpbf16ps emulated lane by lane by its scalar model
// (DpBf16Lane: the SDM's order, round to nearest even, denormals flushed): the same code as the
// AVX512_BF16 build, runnable on any CPU, so the tests check the kernel's structure everywhere.
// Orders of magnitude slower than the instruction: for tests, never for a measurement.
#include "flash_attention_bf16_kernel.h"
#include "peak_models.h"

namespace xpuperf::bench {
namespace {

struct EmulatedBf16Lanes {
  struct Vec {
    float lane[16];
  };
  struct Pairs {
    uint32_t lane[16];
  };
  static Vec Zero() { return Vec{}; }
  static Pairs Load(const uint32_t* pairs) {
    Pairs out;
    for (int i = 0; i < 16; ++i) out.lane[i] = pairs[i];
    return out;
  }
  static Pairs Broadcast(uint32_t pair) {
    Pairs out;
    for (uint32_t& lane : out.lane) lane = pair;
    return out;
  }
  static Vec Dot(Vec acc, const Pairs& a, const Pairs& b) {
    for (int i = 0; i < 16; ++i) acc.lane[i] = DpBf16Lane(acc.lane[i], a.lane[i], b.lane[i]);
    return acc;
  }
  // The fp32 add the AVX-512 build does with vaddps (round to nearest even).
  static void AddStore(float* c, const Vec& v) {
    for (int i = 0; i < 16; ++i) c[i] += v.lane[i];
  }
};

}  // namespace

void FlashBf16BlockEmulated(const Bf16BlockShape& shape, const uint16_t* q, const uint16_t* k,
                            const uint16_t* v, float* o, int64_t batch_head, int64_t block,
                            const Bf16Scratch& scratch) {
  FlashBlockBf16<EmulatedBf16Lanes>(shape, q, k, v, o, batch_head, block, scratch);
}

}  // namespace xpuperf::bench

// AMX tile peaks (Sapphire Rapids and later): tdpbf16ps (bf16 pairs into fp32) and tdpbusd (u8 x s8
// quads into s32), built with -mamx-tile -mamx-bf16 -mamx-int8. Tiles are named by immediates, so
// this loop cannot be the register-traits loop of peak_chain_loop.h; it keeps its shape: four
// independent accumulator tiles (2 x 2 blocking of A tiles 4-5 and B tiles 6-7), operands from
// PeakOperands, the same alternating step operands, and the same scalar-model verification. The
// caller has asked Linux for the tile state (RequestAmxPermission).
#include <immintrin.h>

#include <cstddef>

#include "peak_operands.h"

namespace xpuperf::bench {
namespace {

// The 64-byte tile configuration of palette 1: every tile used is 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette_id = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

constexpr std::ptrdiff_t kTileWords =
    std::ptrdiff_t{16} * 16;  // 32-bit elements per 16 x 64-byte tile

template <bool kInt8>
void RunTileLoop(int64_t iterations, const PeakOperands& ops, void* out) {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = 64;
    config.rows[t] = 16;
  }
  alignas(64) uint32_t a[kTileWords], b0[kTileWords], b1[kTileWords];
  auto* c = static_cast<uint32_t*>(out);  // 4 tiles of 16 x 16 accumulators
  for (int i = 0; i < kTileWords; ++i) {
    a[i] = static_cast<uint32_t>(ops.a);
    b0[i] = static_cast<uint32_t>(ops.b[0]);
    b1[i] = static_cast<uint32_t>(ops.b[1]);
    for (int t = 0; t < kAmxPeakTiles; ++t)
      c[t * kTileWords + i] = static_cast<uint32_t>(ops.start[t]);
  }
  _tile_loadconfig(&config);
  _tile_loadd(0, c + 0 * kTileWords, 64);
  _tile_loadd(1, c + 1 * kTileWords, 64);
  _tile_loadd(2, c + 2 * kTileWords, 64);
  _tile_loadd(3, c + 3 * kTileWords, 64);
  _tile_loadd(4, a, 64);
  _tile_loadd(5, a, 64);
  _tile_loadd(6, b0, 64);
  _tile_loadd(7, b1, 64);
#define XPUPERF_TILE_STEP(b)   \
  do {                         \
    if constexpr (kInt8) {     \
      _tile_dpbusd(0, 4, b);   \
      _tile_dpbusd(1, 5, b);   \
      _tile_dpbusd(2, 4, b);   \
      _tile_dpbusd(3, 5, b);   \
    } else {                   \
      _tile_dpbf16ps(0, 4, b); \
      _tile_dpbf16ps(1, 5, b); \
      _tile_dpbf16ps(2, 4, b); \
      _tile_dpbf16ps(3, 5, b); \
    }                          \
  } while (false)
  int64_t i = 0;
  for (; i + 2 <= iterations; i += 2) {
    XPUPERF_TILE_STEP(6);
    XPUPERF_TILE_STEP(7);
  }
  if (i < iterations) XPUPERF_TILE_STEP(6);
#undef XPUPERF_TILE_STEP
  _tile_stored(0, c + 0 * kTileWords, 64);
  _tile_stored(1, c + 1 * kTileWords, 64);
  _tile_stored(2, c + 2 * kTileWords, 64);
  _tile_stored(3, c + 3 * kTileWords, 64);
  _tile_release();
}

}  // namespace

void PeakTilesAmxBf16(int64_t iterations, const PeakOperands& ops, void* out) {
  RunTileLoop<false>(iterations, ops, out);
}
void PeakTilesAmxInt8(int64_t iterations, const PeakOperands& ops, void* out) {
  RunTileLoop<true>(iterations, ops, out);
}

}  // namespace xpuperf::bench

// Internal: classifies JSON text 64 bytes at a time into bit masks (bit i = byte i of the block),
// as simdjson's first stage does, so the top-level scanner can find where each trace event ends
// without looking at every byte: quotes, backslashes and brackets are found with SSE2 compares,
// escapes and "inside a string" are computed on the masks.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace xpuperf::trace::internal {

struct BlockMasks {
  uint64_t quote = 0;      // '"'
  uint64_t backslash = 0;  // '\\'
  uint64_t open = 0;       // '{' or '['
  uint64_t close = 0;      // '}' or ']'
};

// Any number of bytes up to 64, one at a time (the tail of the text, and other processors).
inline BlockMasks ClassifyBytes(const char* p, size_t n) {
  BlockMasks m;
  for (size_t i = 0; i < n; ++i) {
    uint64_t bit = uint64_t{1} << i;
    switch (p[i]) {
      case '"':
        m.quote |= bit;
        break;
      case '\\':
        m.backslash |= bit;
        break;
      case '{':
      case '[':
        m.open |= bit;
        break;
      case '}':
      case ']':
        m.close |= bit;
        break;
      default:
        break;
    }
  }
  return m;
}

// Exactly 64 bytes.
inline BlockMasks ClassifyBlock(const char* p) {
#if defined(__SSE2__)
  BlockMasks m;
  // '{' 0x7B / '[' 0x5B and '}' 0x7D / ']' 0x5D differ only in bit 0x20: one compare each.
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'),
                case_bit = _mm_set1_epi8(0x20);
  for (int part = 0; part < 4; ++part) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::ptrdiff_t{16} * part));
    __m128i folded = _mm_or_si128(v, case_bit);
    int shift = 16 * part;
    m.quote |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))) << shift;
    m.backslash |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)))) << shift;
    m.open |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)))) << shift;
    m.close |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)))) << shift;
  }
  return m;
#else
  return ClassifyBytes(p, 64);
#endif
}

// Bit i set when an odd number of bits at or below i are set in x.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// Follows string state from block to block: which bytes are inside a string (the opening quote
// counts as inside, the closing one as outside), honouring backslash escapes across blocks.
class StringTracker {
 public:
  // Mask of the block's bytes inside strings; call once per block, in order.
  uint64_t InString(const BlockMasks& m) {
    uint64_t escaped = escape_carry_;
    escape_carry_ = 0;
    // A backslash escapes the next byte unless it is escaped itself. Backslashes are rare in
    // traces, so a loop over them is cheaper than the branch-free carry arithmetic.
    for (uint64_t bits = m.backslash; bits != 0; bits &= bits - 1) {
      int i = __builtin_ctzll(bits);
      if ((escaped >> i) & 1) continue;
      if (i == 63) {
        escape_carry_ = 1;
      } else {
        escaped |= uint64_t{1} << (i + 1);
      }
    }
    uint64_t in_string = PrefixXor(m.quote & ~escaped) ^ string_carry_;
    string_carry_ = static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
    return in_string;
  }
  bool inside_string() const { return string_carry_ != 0; }

 private:
  uint64_t escape_carry_ = 0;  // bit 0 of the next block is escaped
  uint64_t string_carry_ = 0;  // all ones when the previous block ended inside a string
};

}  // namespace xpuperf::trace::internal

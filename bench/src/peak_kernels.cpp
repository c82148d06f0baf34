#include "xpuperf/bench/peak_kernels.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "peak_models.h"
#include "peak_operands.h"

namespace xpuperf::bench {
namespace {

using enum IsaExtension;

// Chain c starts at 1 + c/16: distinct starts keep the compiler from merging identical chains,
// and keep every value in [1, 2) where the steps below are exact.
double ChainStart(int chain) { return 1.0 + chain / 16.0; }

constexpr double kFp64Step = 0x1p-40;
constexpr float kFp32Step = 0x1p-23f;
constexpr double kFp16Step = 0x1p-10;
// bf16 pair (2^-23, 2^-22) times (1, 1): each vdpbf16ps adds 3 x 2^-23 to a value in [1, 2).
constexpr float kBf16StepLow = 0x1p-23f;
constexpr float kBf16StepHigh = 0x1p-22f;
// u8 200 in every byte times s8 (2, -1, 1, 1): 600 per step; pair sums 200 and 400 stay within
// int16, so the AVX2 sequence (which saturates pairs) and vpdpbusd agree.
constexpr uint8_t kInt8A = 200;
constexpr uint32_t kInt8B = 0x0101ff02;  // bytes 0..3: 2, -1, 1, 1
constexpr int32_t kInt8StartStride = 1000;

// Per precision from the widest to the narrowest. Columns: id, precision, isa, instruction,
// register bits, accumulator lanes, operations per lane per step, chains, extensions needed.
const std::vector<PeakKernel>& Table() {
  using K = PeakKernelId;
  using P = Precision;
  constexpr int kChains = kPeakChains;
  // clang-format off
  static const std::vector<PeakKernel> table = {
      {K::kAvx512Fp64, P::kFp64, "avx512f", "vfmadd231pd zmm", 512, 8, 2, kChains, {kAvx512f}},
      {K::kAvx2Fp64, P::kFp64, "avx2_fma", "vfmadd231pd ymm", 256, 4, 2, kChains, {kAvx2, kFma}},
      {K::kSse2Fp64, P::kFp64, "sse2", "mulpd + addpd xmm", 128, 2, 2, kChains, {}},
      {K::kAvx512Fp32, P::kFp32, "avx512f", "vfmadd231ps zmm", 512, 16, 2, kChains, {kAvx512f}},
      {K::kAvx2Fp32, P::kFp32, "avx2_fma", "vfmadd231ps ymm", 256, 8, 2, kChains, {kAvx2, kFma}},
      {K::kSse2Fp32, P::kFp32, "sse2", "mulps + addps xmm", 128, 4, 2, kChains, {}},
      {K::kAmxBf16, P::kBf16, "amx_bf16", "tdpbf16ps (4 accumulator tiles)", 8192,
       kAmxTileElements, 64, kAmxPeakTiles, {kAmxTile, kAmxBf16}},
      {K::kAvx512Bf16, P::kBf16, "avx512_bf16", "vdpbf16ps zmm", 512, 16, 4, kChains,
       {kAvx512f, kAvx512Bf16}},
      {K::kAvx512Fp16, P::kFp16, "avx512_fp16", "vfmadd231ph zmm", 512, 32, 2, kChains,
       {kAvx512f, kAvx512bw, kAvx512Fp16}},
      {K::kAmxInt8, P::kInt8, "amx_int8", "tdpbusd (4 accumulator tiles)", 8192,
       kAmxTileElements, 128, kAmxPeakTiles, {kAmxTile, kAmxInt8}},
      {K::kAvx512VnniInt8, P::kInt8, "avx512_vnni", "vpdpbusd zmm", 512, 16, 8, kChains,
       {kAvx512f, kAvx512Vnni}},
      {K::kAvxVnniInt8, P::kInt8, "avx_vnni", "vpdpbusd ymm (VEX)", 256, 8, 8, kChains,
       {kAvx2, kAvxVnni}},
      {K::kAvx2Int8, P::kInt8, "avx2", "vpmaddubsw + vpmaddwd + vpaddd ymm", 256, 8, 8,
       kAvx2Int8PeakChains, {kAvx2}},
  };
  // clang-format on
  return table;
}

PeakKernelEntry EntryOf(PeakKernelId id) {
  switch (id) {
    case PeakKernelId::kSse2Fp64:
      return PeakChainsSse2Fp64;
    case PeakKernelId::kSse2Fp32:
      return PeakChainsSse2Fp32;
    case PeakKernelId::kAvx2Fp64:
      return PeakChainsAvx2Fp64;
    case PeakKernelId::kAvx2Fp32:
      return PeakChainsAvx2Fp32;
    case PeakKernelId::kAvx2Int8:
      return PeakChainsAvx2Int8;
    case PeakKernelId::kAvxVnniInt8:
      return PeakChainsAvxVnniInt8;
    case PeakKernelId::kAvx512Fp64:
      return PeakChainsAvx512Fp64;
    case PeakKernelId::kAvx512Fp32:
      return PeakChainsAvx512Fp32;
    case PeakKernelId::kAvx512Bf16:
      return PeakChainsAvx512Bf16;
    case PeakKernelId::kAvx512VnniInt8:
      return PeakChainsAvx512VnniInt8;
    case PeakKernelId::kAvx512Fp16:
      return PeakChainsAvx512Fp16;
    case PeakKernelId::kAmxBf16:
      return PeakTilesAmxBf16;
    case PeakKernelId::kAmxInt8:
      return PeakTilesAmxInt8;
  }
  std::abort();
}

bool IsAmx(const PeakKernel& kernel) {
  return kernel.id == PeakKernelId::kAmxBf16 || kernel.id == PeakKernelId::kAmxInt8;
}

uint64_t FloatBits(float value) { return std::bit_cast<uint32_t>(value); }
uint64_t DoubleBits(double value) { return std::bit_cast<uint64_t>(value); }
uint32_t Bf16Pair(float low, float high) {
  return uint32_t{Bf16FromFloat(low)} | (uint32_t{Bf16FromFloat(high)} << 16);
}
uint32_t ByteQuad(uint8_t byte) { return byte * 0x01010101u; }

PeakOperands MakeOperands(const PeakKernel& kernel, double multiplier) {
  PeakOperands ops;
  for (int c = 0; c < kernel.chains; ++c) {
    const double start = ChainStart(c);
    switch (kernel.precision) {
      case Precision::kFp64:
        ops.start[c] = DoubleBits(start);
        break;
      case Precision::kFp32:
      case Precision::kBf16:
        ops.start[c] = FloatBits(static_cast<float>(start));
        break;
      case Precision::kFp16:
        ops.start[c] = HalfFromDouble(start);
        break;
      case Precision::kInt8:
        ops.start[c] = static_cast<uint32_t>(c * kInt8StartStride);
        break;
    }
  }
  switch (kernel.precision) {
    case Precision::kFp64:
      ops.a = DoubleBits(multiplier);
      ops.b[0] = ops.b[1] = DoubleBits(kFp64Step);
      break;
    case Precision::kFp32:
      ops.a = FloatBits(static_cast<float>(multiplier));
      ops.b[0] = ops.b[1] = FloatBits(kFp32Step);
      break;
    case Precision::kFp16:
      ops.a = HalfFromDouble(multiplier);
      ops.b[0] = HalfFromDouble(kFp16Step);
      ops.b[1] = HalfFromDouble(-kFp16Step);  // alternating: stays exact however long it runs
      break;
    case Precision::kBf16: {
      const float m = static_cast<float>(multiplier);
      ops.a = Bf16Pair(m, m);
      ops.b[0] = ops.b[1] = Bf16Pair(kBf16StepLow, kBf16StepHigh);
      // A tile step adds 16 pairs (48 x 2^-23): alternating signs keep it exact however long.
      if (IsAmx(kernel)) ops.b[1] = Bf16Pair(-kBf16StepLow, -kBf16StepHigh);
      break;
    }
    case Precision::kInt8:
      // A tile step adds 16 quads: a = 1 keeps it at 48 per step, far from int32 overflow.
      ops.a = ByteQuad(static_cast<uint8_t>((IsAmx(kernel) ? 1 : kInt8A) * multiplier));
      ops.b[0] = ops.b[1] = kInt8B;
      break;
  }
  return ops;
}

// One step of one lane, as the kernel's instruction computes it, on the operands' bit patterns. A
// tile step is 16 pair (quad) dot products into the element, as the SDM's TDPBF16PS/TDPBUSD loop.
uint64_t ModelStep(const PeakKernel& kernel, uint64_t acc, uint64_t a, uint64_t b) {
  if (kernel.id == PeakKernelId::kAmxBf16) {
    float x = std::bit_cast<float>(static_cast<uint32_t>(acc));
    for (int k = 0; k < 16; ++k) {
      x = DpBf16Lane(x, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    }
    return FloatBits(x);
  }
  if (kernel.id == PeakKernelId::kAmxInt8) {
    auto x = static_cast<int32_t>(static_cast<uint32_t>(acc));
    for (int k = 0; k < 16; ++k) {
      x = DpBusdLane(x, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    }
    return static_cast<uint32_t>(x);
  }
  const bool fused = kernel.id != PeakKernelId::kSse2Fp64 && kernel.id != PeakKernelId::kSse2Fp32;
  switch (kernel.precision) {
    case Precision::kFp64: {
      const double x = std::bit_cast<double>(acc), m = std::bit_cast<double>(a),
                   s = std::bit_cast<double>(b);
      return DoubleBits(fused ? std::fma(x, m, s) : x * m + s);
    }
    case Precision::kFp32: {
      const float x = std::bit_cast<float>(static_cast<uint32_t>(acc)),
                  m = std::bit_cast<float>(static_cast<uint32_t>(a)),
                  s = std::bit_cast<float>(static_cast<uint32_t>(b));
      return FloatBits(fused ? std::fmaf(x, m, s) : x * m + s);
    }
    case Precision::kFp16:
      return FmaHalfLane(static_cast<uint16_t>(acc), static_cast<uint16_t>(a),
                         static_cast<uint16_t>(b));
    case Precision::kBf16:
      return FloatBits(DpBf16Lane(std::bit_cast<float>(static_cast<uint32_t>(acc)),
                                  static_cast<uint32_t>(a), static_cast<uint32_t>(b)));
    case Precision::kInt8: {
      const auto x = static_cast<int32_t>(static_cast<uint32_t>(acc));
      const int32_t next = kernel.id == PeakKernelId::kAvx2Int8
                               ? MaddubsLane(x, static_cast<uint32_t>(a), static_cast<uint32_t>(b))
                               : DpBusdLane(x, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
      return static_cast<uint32_t>(next);
    }
  }
  std::abort();
}

double BitsToDouble(const PeakKernel& kernel, uint64_t bits) {
  switch (kernel.precision) {
    case Precision::kFp64:
      return std::bit_cast<double>(bits);
    case Precision::kFp32:
    case Precision::kBf16:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case Precision::kFp16:
      return DoubleFromHalf(static_cast<uint16_t>(bits));
    case Precision::kInt8:
      return static_cast<int32_t>(static_cast<uint32_t>(bits));
  }
  std::abort();
}

}  // namespace

const std::vector<PeakKernel>& PeakKernels() { return Table(); }

const PeakKernel& PeakKernelById(PeakKernelId id) {
  for (const PeakKernel& kernel : Table()) {
    if (kernel.id == id) return kernel;
  }
  std::abort();
}

Status PeakKernelSupported(const PeakKernel& kernel, const IsaFeatures& features) {
  // The most specific extension first (avx512_bf16 rather than avx512f), which names the kernel.
  for (auto it = kernel.needs.rbegin(); it != kernel.needs.rend(); ++it) {
    const IsaExtension extension = *it;
    if (!features.Has(extension)) {
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: CPU lacks {}", IsaExtensionName(extension)));
    }
  }
  return Status::Ok();
}

Result<const PeakKernel*> SelectPeakKernel(Precision precision, const IsaFeatures& features,
                                           std::string_view isa) {
  std::vector<std::string> missing;
  std::vector<std::string> known;
  for (const PeakKernel& kernel : Table()) {
    if (kernel.precision != precision) continue;
    known.emplace_back(kernel.isa);
    if (!isa.empty() && kernel.isa != isa) continue;
    const Status supported = PeakKernelSupported(kernel, features);
    if (supported.ok()) return &kernel;
    missing.push_back(supported.error().message.substr(sizeof("unsupported: CPU lacks ") - 1));
  }
  if (missing.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("peak_fma: no {} kernel for isa '{}' (known: {})",
                                 PrecisionName(precision), isa, fmt::join(known, ", ")));
  }
  // Narrowest first: "CPU lacks avx512_bf16 and amx_bf16" leads with the common extension.
  std::reverse(missing.begin(), missing.end());
  return MakeError(ErrorCode::kUnsupported,
                   fmt::format("unsupported: CPU lacks {} (no {} peak kernel runs here)",
                               fmt::join(missing, " and "), PrecisionName(precision)));
}

int PeakOutputCount(const PeakKernel& kernel) { return kernel.chains * kernel.lanes; }

double PeakOpsPerCall(const PeakKernel& kernel, int64_t iterations) {
  return static_cast<double>(iterations) * PeakOutputCount(kernel) * kernel.ops_per_lane;
}

int64_t MaxExactPeakIterations(const PeakKernel& kernel) {
  // The largest start is 1 + 11/16, so iterations x increment must stay below 5/16.
  switch (kernel.precision) {
    case Precision::kFp64:
      return int64_t{1} << 40;
    case Precision::kFp32:
      return int64_t{1} << 21;
    case Precision::kBf16:  // 3 x 2^-23 per step; AMX alternates within one step of the start
      return IsAmx(kernel) ? int64_t{1} << 40 : int64_t{1} << 19;
    case Precision::kFp16:
      return int64_t{1} << 40;  // alternates within one step of the start
    case Precision::kInt8:
      return int64_t{1} << 21;  // 600 per step, far below 2^31
  }
  std::abort();
}

void RunPeakKernel(const PeakKernel& kernel, int64_t iterations, double multiplier,
                   std::span<double> out) {
  const size_t count = static_cast<size_t>(PeakOutputCount(kernel));
  if (out.size() < count) std::abort();
  const PeakOperands ops = MakeOperands(kernel, multiplier);
  // Room for the largest output: 4 AMX tiles of 1 KiB (12 zmm chains need 768 bytes).
  alignas(64) uint64_t raw[kAmxPeakTiles * kAmxTileElements / 2];
  EntryOf(kernel.id)(iterations, ops, raw);
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    switch (kernel.precision) {
      case Precision::kFp64:
        std::memcpy(&bits, bytes + 8 * i, 8);
        break;
      case Precision::kFp32:
      case Precision::kBf16:
      case Precision::kInt8:
        std::memcpy(&bits, bytes + 4 * i, 4);
        break;
      case Precision::kFp16:
        std::memcpy(&bits, bytes + 2 * i, 2);
        break;
    }
    out[i] = BitsToDouble(kernel, bits);
  }
}

std::vector<double> ModelPeakChains(const PeakKernel& kernel, int64_t iterations,
                                    double multiplier) {
  const PeakOperands ops = MakeOperands(kernel, multiplier);
  std::vector<double> values;
  for (int c = 0; c < kernel.chains; ++c) {
    uint64_t acc = ops.start[c];
    for (int64_t i = 0; i < iterations; ++i) acc = ModelStep(kernel, acc, ops.a, ops.b[i % 2]);
    values.push_back(BitsToDouble(kernel, acc));
  }
  return values;
}

Status VerifyPeakKernel(const PeakKernel& kernel, int64_t iterations, double multiplier,
                        std::span<const double> values) {
  const std::vector<double> expected = ModelPeakChains(kernel, iterations, multiplier);
  const auto expected_at = [&](size_t i) {
    return expected[(i / static_cast<size_t>(kernel.lanes)) % expected.size()];
  };
  size_t wrong = 0;
  size_t first = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != expected_at(i) && wrong++ == 0) first = i;
  }
  if (wrong == 0) return Status::Ok();
  return MakeError(ErrorCode::kInternal,
                   fmt::format("peak_fma {} {} verification failed: {} of {} values wrong; value "
                               "{} is {:.17g}, the scalar model of {} gives {:.17g}",
                               PrecisionName(kernel.precision), kernel.isa, wrong, values.size(),
                               first, values[first], kernel.instruction, expected_at(first)));
}

}  // namespace xpuperf::bench

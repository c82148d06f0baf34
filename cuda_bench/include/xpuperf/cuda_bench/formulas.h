// Host-side arithmetic of the GPU benchmarks: sweep-point parsing, FLOP and byte counts, nccl-tests
// bus-bandwidth factors and the data patterns results are verified against. No CUDA here, so all of
// it is tested on machines without a GPU.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/bench/gemm.h"
#include "xpuperf/collectives/collective.h"
#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

// ---- point parameters ----
// point[key] as text, or fallback when absent; kInvalidArgument when it is not text (or the point
// is not a mapping).
Result<std::string> TextParameter(const nlohmann::json& point, const char* key,
                                  const std::string& fallback);
// point[key] as a non-negative integer, or fallback when absent; kInvalidArgument otherwise.
Result<uint64_t> CountParameter(const nlohmann::json& point, const char* key, uint64_t fallback);

// ---- precisions ----
enum class GpuPrecision { kFp64, kFp32, kTf32, kFp16, kBf16, kFp8 };
std::string_view GpuPrecisionName(GpuPrecision precision);  // "fp64", ..., "fp8"
// kInvalidArgument naming the known precisions.
Result<GpuPrecision> ParseGpuPrecision(std::string_view name);
// Bytes of one GEMM input element (tf32 is stored as fp32, fp8 is e4m3).
int InputElementBytes(GpuPrecision precision);
// Bytes of one GEMM output element: the input type, except fp8 which writes bf16.
int OutputElementBytes(GpuPrecision precision);
// The lowest compute capability (major*10+minor) with the precision on its matrix or FMA units:
// fp64/fp32 any, tf32/bf16 80, fp16 70 (60 for FMA), fp8 89 (cuBLASLt fp8 needs Ada or Hopper).
int MinComputeCapability(GpuPrecision precision, bool matrix_units);

// ---- peak FMA ----
// FMA chains per thread and the lanes of one FMA instruction: fp16/bf16 use packed pairs (2 lanes).
inline constexpr int kGpuFmaChains = 8;
int FmaLanes(GpuPrecision precision);
// 2 FLOP per lane: 2 x lanes x chains x iterations x threads.
double PeakFmaFlops(GpuPrecision precision, int64_t iterations, int64_t threads);
// The value every chain converges to with x <- x * m + c (|m| < 1): c / (1 - m).
double FmaFixedPoint(double m, double c);

// ---- GEMM ----
struct GpuGemmPoint {
  GpuPrecision precision = GpuPrecision::kBf16;
  bench::GemmShape shape{4096, 4096, 4096};
};
// {precision, m, n, k}: m, n, k positive, each matrix at most 2^31 elements; fp8 needs m, n and k
// multiples of 16 (cuBLASLt's rule for fp8). kInvalidArgument otherwise.
Result<GpuGemmPoint> ParseGpuGemmPoint(const nlohmann::json& point);
// A and B read once, D written once (beta = 0): (m k + k n) x input bytes + m n x output bytes.
double GpuGemmBytes(const bench::GemmShape& shape, GpuPrecision precision);
// How many input/output sets to rotate through so that consecutive repetitions do not find their
// operands in the L2: enough sets to span 2 x L2, at least 1, at most 8, and never more than fit
// in half of free_bytes (at least 1).
int RotationSets(uint64_t bytes_per_set, uint64_t l2_bytes, uint64_t free_bytes);

// ---- HBM STREAM and the L2 sweep ----
// Bytes of each of the three double arrays: requested_mib when given (> 0), otherwise
// max(8 x L2, 256 MiB); rounded down to a multiple of 64 KiB. kInvalidArgument when three arrays
// would not fit in half of memory_bytes (when memory_bytes > 0).
Result<uint64_t> GpuStreamArrayBytes(uint64_t requested_mib, uint64_t l2_bytes,
                                     uint64_t memory_bytes);
// Working sets of the L2 sweep from {min_kib (default 256), max_kib (default 4 x L2),
// steps_per_octave (default 2)}: min_kib x 2^(i / steps) KiB up to max_kib, each rounded down to a
// multiple of 4 KiB. kInvalidArgument for min > max, steps < 1 or a size below 4 KiB.
Result<std::vector<uint64_t>> L2SweepSizes(const nlohmann::json& point, uint64_t l2_bytes);

// ---- collectives (nccl-tests) ----
// The collectives, their names and nccl-tests' busbw factors are collectives/'s, shared with the
// MPI collectives (one implementation of the factors).
using Collective = collectives::CollectiveOp;
using collectives::BusBandwidthFactor;
using collectives::CollectiveName;
using collectives::ParseCollective;
// The element count passed to NCCL for a point of `bytes` (nccl-tests' size column: the total
// output of all_gather, the total input of reduce_scatter and all_to_all, the buffer otherwise)
// with 4-byte floats over `ranks`: bytes / 4, or bytes / (4 ranks) for all_gather, reduce_scatter
// and all_to_all (then per rank and per peer). 0 when bytes is too small for one element each.
uint64_t CollectiveCount(Collective collective, uint64_t bytes, int ranks);
// Elements of each rank's send and receive buffers for that count.
uint64_t SendElements(Collective collective, uint64_t count, int ranks);
uint64_t RecvElements(Collective collective, uint64_t count, int ranks);
// The bytes nccl-tests reports as size (S) for that count: count x 4 (x ranks where it counts the
// total).
double CollectiveBytes(Collective collective, uint64_t count, int ranks);

// A run of elements holding a + b x (((offset + i) mod 97) + 1) for i in [0, count): exact small
// integers in fp32, so sums over ranks are exact and compared with ==.
struct PatternSegment {
  uint64_t start = 0;  // first element in the buffer
  uint64_t count = 0;
  float a = 0;
  float b = 0;
  uint64_t offset = 0;
};
inline constexpr uint64_t kPatternPeriod = 97;
// What rank r sends: one segment of SendElements with a = r + 1, b = 8.
std::vector<PatternSegment> SendPattern(Collective collective, int rank, int ranks, uint64_t count);
// What rank r must hold afterwards (sum reduction; broadcast from rank 0; send_recv around the
// ring, rank r receiving from r - 1).
std::vector<PatternSegment> ExpectedRecvPattern(Collective collective, int rank, int ranks,
                                                uint64_t count);
// The value of segment element i (host side of the device fill and check).
float PatternValue(const PatternSegment& segment, uint64_t i);

// ---- attention ----
struct AttentionPoint {
  int64_t batch = 1;
  int64_t heads = 16;
  int64_t seq = 4096;  // queries = keys
  int64_t head_dim = 128;
  bool causal = false;
};
// {batch, heads, seq_len, head_dim (64 or 128), causal}: seq_len a positive multiple of 64 (the
// keys of the CPU attention benchmark).
Result<AttentionPoint> ParseAttentionPoint(const nlohmann::json& point);
// 4 s_q s_kv h d b; causal (4 s_q s_kv - 2 s_q^2) h d b (the usual half-of-the-square count).
double AttentionFlops(const AttentionPoint& point);
// Q, K, V read and O written once, bf16: 4 x b h s d x 2 bytes.
double AttentionBytes(const AttentionPoint& point);

}  // namespace xpuperf::cuda_bench

#include "xpuperf/cuda_bench/formulas.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace xpuperf::cuda_bench {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * 1024;
constexpr GpuPrecision kAllPrecisions[] = {GpuPrecision::kFp64, GpuPrecision::kFp32,
                                           GpuPrecision::kTf32, GpuPrecision::kFp16,
                                           GpuPrecision::kBf16, GpuPrecision::kFp8};
// Counts one element per rank in the total (all_gather output, reduce_scatter and all_to_all
// input).
bool CountsTotal(Collective collective) {
  return collective == Collective::kAllGather || collective == Collective::kReduceScatter ||
         collective == Collective::kAllToAll;
}

Result<int64_t> PositiveInt(const nlohmann::json& point, const char* key, int64_t fallback) {
  if (!point.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "a sweep point must be a mapping");
  }
  if (!point.contains(key)) return fallback;
  const nlohmann::json& value = point.at(key);
  if (!value.is_number_integer() || value.get<int64_t>() < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("'{}' must be a positive integer (got {})", key, value.dump()));
  }
  return value.get<int64_t>();
}

}  // namespace

Result<std::string> TextParameter(const nlohmann::json& point, const char* key,
                                  const std::string& fallback) {
  if (!point.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "a sweep point must be a mapping");
  }
  if (!point.contains(key)) return fallback;
  if (!point.at(key).is_string()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("'{}' must be text (got {})", key, point.at(key).dump()));
  }
  return point.at(key).get<std::string>();
}

Result<uint64_t> CountParameter(const nlohmann::json& point, const char* key, uint64_t fallback) {
  if (!point.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "a sweep point must be a mapping");
  }
  if (!point.contains(key)) return fallback;
  const nlohmann::json& value = point.at(key);
  if (!value.is_number_integer() || value.get<int64_t>() < 0) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("'{}' must be a non-negative integer (got {})", key, value.dump()));
  }
  return value.get<uint64_t>();
}

std::string_view GpuPrecisionName(GpuPrecision precision) {
  switch (precision) {
    case GpuPrecision::kFp64:
      return "fp64";
    case GpuPrecision::kFp32:
      return "fp32";
    case GpuPrecision::kTf32:
      return "tf32";
    case GpuPrecision::kFp16:
      return "fp16";
    case GpuPrecision::kBf16:
      return "bf16";
    case GpuPrecision::kFp8:
      return "fp8";
  }
  return "unknown";
}

Result<GpuPrecision> ParseGpuPrecision(std::string_view name) {
  for (GpuPrecision p : kAllPrecisions) {
    if (GpuPrecisionName(p) == name) return p;
  }
  return MakeError(
      ErrorCode::kInvalidArgument,
      fmt::format("unknown precision '{}' (known: fp64, fp32, tf32, fp16, bf16, fp8)", name));
}

int InputElementBytes(GpuPrecision precision) {
  switch (precision) {
    case GpuPrecision::kFp64:
      return 8;
    case GpuPrecision::kFp32:
    case GpuPrecision::kTf32:
      return 4;
    case GpuPrecision::kFp16:
    case GpuPrecision::kBf16:
      return 2;
    case GpuPrecision::kFp8:
      return 1;
  }
  return 0;
}

int OutputElementBytes(GpuPrecision precision) {
  return precision == GpuPrecision::kFp8 ? 2 : InputElementBytes(precision);
}

int MinComputeCapability(GpuPrecision precision, bool matrix_units) {
  switch (precision) {
    case GpuPrecision::kFp64:
    case GpuPrecision::kFp32:
      return 0;
    case GpuPrecision::kTf32:
    case GpuPrecision::kBf16:
      return 80;
    case GpuPrecision::kFp16:
      return matrix_units ? 70 : 60;
    case GpuPrecision::kFp8:
      return 89;
  }
  return 0;
}

int FmaLanes(GpuPrecision precision) {
  return precision == GpuPrecision::kFp16 || precision == GpuPrecision::kBf16 ? 2 : 1;
}

double PeakFmaFlops(GpuPrecision precision, int64_t iterations, int64_t threads) {
  return 2.0 * FmaLanes(precision) * kGpuFmaChains * static_cast<double>(iterations) *
         static_cast<double>(threads);
}

double FmaFixedPoint(double m, double c) { return c / (1.0 - m); }

Result<GpuGemmPoint> ParseGpuGemmPoint(const nlohmann::json& point) {
  GpuGemmPoint parsed;
  if (!point.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "gpu_gemm: a point must be a mapping");
  }
  XPUPERF_ASSIGN_OR_RETURN(const std::string precision, TextParameter(point, "precision", "bf16"));
  XPUPERF_ASSIGN_OR_RETURN(parsed.precision, ParseGpuPrecision(precision));
  XPUPERF_ASSIGN_OR_RETURN(parsed.shape.m, PositiveInt(point, "m", 4096));
  XPUPERF_ASSIGN_OR_RETURN(parsed.shape.n, PositiveInt(point, "n", 4096));
  XPUPERF_ASSIGN_OR_RETURN(parsed.shape.k, PositiveInt(point, "k", 4096));
  const auto& s = parsed.shape;
  constexpr int64_t kMaxElements = int64_t{1} << 31;
  if (s.m * s.k > kMaxElements || s.k * s.n > kMaxElements || s.m * s.n > kMaxElements) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gpu_gemm: each matrix must have at most 2^31 elements (got m={} "
                                 "n={} k={})",
                                 s.m, s.n, s.k));
  }
  if (parsed.precision == GpuPrecision::kFp8 && (s.m % 16 != 0 || s.n % 16 != 0 || s.k % 16 != 0)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gpu_gemm: fp8 needs m, n and k multiples of 16 (got m={} n={} "
                                 "k={})",
                                 s.m, s.n, s.k));
  }
  return parsed;
}

double GpuGemmBytes(const bench::GemmShape& shape, GpuPrecision precision) {
  const double m = static_cast<double>(shape.m);
  const double n = static_cast<double>(shape.n);
  const double k = static_cast<double>(shape.k);
  return (m * k + k * n) * InputElementBytes(precision) + m * n * OutputElementBytes(precision);
}

int RotationSets(uint64_t bytes_per_set, uint64_t l2_bytes, uint64_t free_bytes) {
  if (bytes_per_set == 0) return 1;
  const uint64_t wanted = (2 * l2_bytes + bytes_per_set - 1) / bytes_per_set;
  const uint64_t fit = free_bytes / 2 / bytes_per_set;
  return static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>({wanted, 8, fit})));
}

Result<uint64_t> GpuStreamArrayBytes(uint64_t requested_mib, uint64_t l2_bytes,
                                     uint64_t memory_bytes) {
  uint64_t bytes = requested_mib > 0 ? requested_mib * kMiB : std::max(8 * l2_bytes, 256 * kMiB);
  bytes = bytes / (64 * kKiB) * (64 * kKiB);
  if (bytes == 0 || (memory_bytes > 0 && 3 * bytes > memory_bytes / 2)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gpu_stream: 3 arrays of {} MiB do not fit in half of the {} MiB "
                                 "of device memory",
                                 bytes / kMiB, memory_bytes / kMiB));
  }
  return bytes;
}

Result<std::vector<uint64_t>> L2SweepSizes(const nlohmann::json& point, uint64_t l2_bytes) {
  XPUPERF_ASSIGN_OR_RETURN(const int64_t min_kib, PositiveInt(point, "min_kib", 256));
  const int64_t default_max = std::max<int64_t>(static_cast<int64_t>(4 * l2_bytes / kKiB), min_kib);
  XPUPERF_ASSIGN_OR_RETURN(const int64_t max_kib, PositiveInt(point, "max_kib", default_max));
  XPUPERF_ASSIGN_OR_RETURN(const int64_t steps, PositiveInt(point, "steps_per_octave", 2));
  if (min_kib < 4 || min_kib > max_kib || steps > 64) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("gpu_l2_sweep: need 4 <= min_kib <= max_kib and steps_per_octave "
                                 "<= 64 (got min_kib={} max_kib={} steps_per_octave={})",
                                 min_kib, max_kib, steps));
  }
  std::vector<uint64_t> sizes;
  for (int i = 0;; ++i) {
    const double kib = static_cast<double>(min_kib) * std::exp2(static_cast<double>(i) / steps);
    if (kib > static_cast<double>(max_kib) * (1 + 1e-9)) break;
    const uint64_t bytes = static_cast<uint64_t>(kib * kKiB) / (4 * kKiB) * (4 * kKiB);
    if (sizes.empty() || sizes.back() != bytes) sizes.push_back(bytes);
  }
  return sizes;
}

uint64_t CollectiveCount(Collective collective, uint64_t bytes, int ranks) {
  const uint64_t elements = bytes / 4;
  return CountsTotal(collective) ? elements / static_cast<uint64_t>(ranks) : elements;
}

uint64_t SendElements(Collective collective, uint64_t count, int ranks) {
  const bool total =
      collective == Collective::kReduceScatter || collective == Collective::kAllToAll;
  return total ? count * static_cast<uint64_t>(ranks) : count;
}

uint64_t RecvElements(Collective collective, uint64_t count, int ranks) {
  const bool total = collective == Collective::kAllGather || collective == Collective::kAllToAll;
  return total ? count * static_cast<uint64_t>(ranks) : count;
}

double CollectiveBytes(Collective collective, uint64_t count, int ranks) {
  const double bytes = static_cast<double>(count) * 4;
  return CountsTotal(collective) ? bytes * ranks : bytes;
}

std::vector<PatternSegment> SendPattern(Collective collective, int rank, int ranks,
                                        uint64_t count) {
  return {PatternSegment{0, SendElements(collective, count, ranks), static_cast<float>(rank + 1),
                         8.0f, 0}};
}

std::vector<PatternSegment> ExpectedRecvPattern(Collective collective, int rank, int ranks,
                                                uint64_t count) {
  const auto n = static_cast<uint64_t>(ranks);
  const auto r = static_cast<uint64_t>(rank);
  // Sum over ranks q of (q + 1) + 8 g = n (n + 1) / 2 + 8 n g.
  const auto sum_a = static_cast<float>(n * (n + 1)) / 2.0F;  // n (n + 1) is even: exact
  const auto sum_b = static_cast<float>(8 * n);
  std::vector<PatternSegment> segments;
  switch (collective) {
    case Collective::kAllReduce:
      segments.push_back({0, count, sum_a, sum_b, 0});
      break;
    case Collective::kReduceScatter:
      // Rank r keeps block r of the reduced input.
      segments.push_back({0, count, sum_a, sum_b, r * count});
      break;
    case Collective::kAllGather:
      for (uint64_t q = 0; q < n; ++q) {
        segments.push_back({q * count, count, static_cast<float>(q + 1), 8.0f, 0});
      }
      break;
    case Collective::kAllToAll:
      // Block q of rank r's output is block r of rank q's input.
      for (uint64_t q = 0; q < n; ++q) {
        segments.push_back({q * count, count, static_cast<float>(q + 1), 8.0f, r * count});
      }
      break;
    case Collective::kBroadcast:
      segments.push_back({0, count, 1.0f, 8.0f, 0});
      break;
    case Collective::kSendRecv:
      segments.push_back({0, count, static_cast<float>((r + n - 1) % n + 1), 8.0f, 0});
      break;
  }
  return segments;
}

float PatternValue(const PatternSegment& segment, uint64_t i) {
  return segment.a + segment.b * static_cast<float>((segment.offset + i) % kPatternPeriod + 1);
}

Result<AttentionPoint> ParseAttentionPoint(const nlohmann::json& point) {
  AttentionPoint parsed;
  if (!point.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "gpu_attention: a point must be a mapping");
  }
  XPUPERF_ASSIGN_OR_RETURN(parsed.batch, PositiveInt(point, "batch", parsed.batch));
  XPUPERF_ASSIGN_OR_RETURN(parsed.heads, PositiveInt(point, "heads", parsed.heads));
  XPUPERF_ASSIGN_OR_RETURN(parsed.seq, PositiveInt(point, "seq_len", parsed.seq));
  XPUPERF_ASSIGN_OR_RETURN(parsed.head_dim, PositiveInt(point, "head_dim", parsed.head_dim));
  if (point.contains("causal")) {
    if (!point.at("causal").is_boolean()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "gpu_attention: 'causal' must be true or false");
    }
    parsed.causal = point.at("causal").get<bool>();
  }
  if (parsed.head_dim != 64 && parsed.head_dim != 128) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("gpu_attention: head_dim must be 64 or 128 (got {})", parsed.head_dim));
  }
  if (parsed.seq % 64 != 0 || parsed.seq > (int64_t{1} << 20)) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("gpu_attention: seq_len must be a multiple of 64 up to 2^20 (got {})",
                    parsed.seq));
  }
  const double elements = static_cast<double>(parsed.batch) * static_cast<double>(parsed.heads) *
                          static_cast<double>(parsed.seq) * static_cast<double>(parsed.head_dim);
  if (elements > static_cast<double>(int64_t{1} << 31)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "gpu_attention: batch x heads x seq x head_dim must be at most 2^31");
  }
  return parsed;
}

double AttentionFlops(const AttentionPoint& point) {
  const double s = static_cast<double>(point.seq);
  const double rest = static_cast<double>(point.heads) * static_cast<double>(point.head_dim) *
                      static_cast<double>(point.batch);
  return (point.causal ? 4 * s * s - 2 * s * s : 4 * s * s) * rest;
}

double AttentionBytes(const AttentionPoint& point) {
  return 4.0 * static_cast<double>(point.batch) * static_cast<double>(point.heads) *
         static_cast<double>(point.seq) * static_cast<double>(point.head_dim) * 2;
}

}  // namespace xpuperf::cuda_bench

#include "attention_benchmark.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "xpuperf/bench/attention.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/threads.h"

namespace xpuperf::bench {
namespace {

// Query rows per (batch, head) recomputed by the naive reference after every run: the first, the
// last and evenly spaced ones, so causal masks at both ends and every query block are covered.
constexpr int64_t kVerifiedRowsPerHead = 8;

Result<int64_t> ReadInteger(const nlohmann::json& point, const char* key, int64_t fallback) {
  if (!point.contains(key)) return fallback;
  if (!point[key].is_number_integer()) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("attention: '{}' must be an integer (got {})", key, point[key].dump()));
  }
  return point[key].get<int64_t>();
}

Result<AttentionShape> ParsePoint(const nlohmann::json& point) {
  AttentionShape shape;
  XPUPERF_ASSIGN_OR_RETURN(shape.batch, ReadInteger(point, "batch", 1));
  XPUPERF_ASSIGN_OR_RETURN(shape.heads, ReadInteger(point, "heads", 8));
  XPUPERF_ASSIGN_OR_RETURN(shape.seq_len, ReadInteger(point, "seq_len", 512));
  XPUPERF_ASSIGN_OR_RETURN(shape.head_dim, ReadInteger(point, "head_dim", 64));
  if (point.contains("causal")) {
    if (!point["causal"].is_boolean()) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "attention: 'causal' must be true or false (got " + point["causal"].dump() + ")");
    }
    shape.causal = point["causal"].get<bool>();
  }
  XPUPERF_RETURN_IF_ERROR(CheckAttentionShape(shape));
  return shape;
}

Status CheckFits(const AttentionShape& shape, const Device& device) {
  const double bytes = 4.0 * 4.0 * static_cast<double>(shape.elements());  // Q, K, V, O
  if (device.memory_bytes > 0 && bytes > static_cast<double>(device.memory_bytes) / 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("attention: Q, K, V and O ({:.0f} MiB) do not fit in half of "
                                 "the {} MiB of memory",
                                 bytes / (1 << 20), device.memory_bytes >> 20));
  }
  return Status::Ok();
}

// Uniform in [-1, 1) from a 64-bit mixer: random, never constant, cheap for large tensors.
void FillUniform(std::vector<float>& values, uint64_t seed) {
  uint64_t state = seed;
  for (float& x : values) {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    x = static_cast<float>(static_cast<double>(z >> 40) / static_cast<double>(1ULL << 23) - 1.0);
  }
}

class AttentionBenchmark final : public Benchmark {
 public:
  std::string name() const override { return "attention"; }
  Component component() const override { return Component::kAttention; }
  std::string description() const override {
    return "flash-attention forward, fp32 (tiled, online softmax), causal and non-causal; "
           "GFLOP/s by 4 s^2 h d b (causal 4 s^2 - 2 s^2) and the fraction of the run's fp32 GEMM";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    const double max = double(int64_t{1} << 28);
    return ParameterSchema{
        IntegerParameter("batch", 1, 1, max), IntegerParameter("heads", 8, 1, max),
        IntegerParameter("seq_len", 512, 1, max), IntegerParameter("head_dim", 64, 1, max),
        BooleanParameter("causal", false)};
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"batch", 1}, {"heads", 8}, {"seq_len", 512}, {"head_dim", 64}, {"causal", false}},
            {{"batch", 1}, {"heads", 8}, {"seq_len", 512}, {"head_dim", 64}, {"causal", true}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no attention kernel for backend '" + device.backend + "'");
    }
    XPUPERF_ASSIGN_OR_RETURN(const AttentionShape shape, ParsePoint(point));
    return CheckFits(shape, device);
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const AttentionShape shape, ParsePoint(point));
    if (context.device != nullptr) XPUPERF_RETURN_IF_ERROR(CheckFits(shape, *context.device));
    const size_t elements = static_cast<size_t>(shape.elements());
    std::vector<float> q(elements), k(elements), v(elements);
    std::vector<float> o(elements, std::numeric_limits<float>::quiet_NaN());
    FillUniform(q, 1);
    FillUniform(k, 2);
    FillUniform(v, 3);
    const PinnedOpenMpTeam team(context.threads);
    const int threads = team.size();
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        FlashAttentionForward(shape, q.data(), k.data(), v.data(), o.data(), threads);
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(
        VerifyAttention(shape, q.data(), k.data(), v.data(), o.data(), kVerifiedRowsPerHead));

    const double flops = AttentionFlops(shape);
    Measurement m = MakeThroughput(name(), "fp32_flops", samples, flops, true, context);
    m.parameters = point;
    m.parameters["batch"] = shape.batch;
    m.parameters["heads"] = shape.heads;
    m.parameters["seq_len"] = shape.seq_len;
    m.parameters["head_dim"] = shape.head_dim;
    m.parameters["causal"] = shape.causal;
    m.parameters["threads"] = threads;
    // Q, K, V read and O written once: the minimum traffic of a fused kernel.
    m.bytes_per_repetition = 4.0 * 4.0 * static_cast<double>(elements);
    m.formula = AttentionFlopsFormula(shape) + "; " + m.formula;
    std::vector<Measurement> out;
    const auto gemm =
        context.earlier != nullptr ? BestFp32GemmRate(*context.earlier) : std::nullopt;
    if (!gemm) {
      m.parameters["fraction_of_fp32_gemm"] = "unavailable (no fp32 gemm in this run)";
      out.push_back(std::move(m));
      return out;
    }
    const Measurement& source = *gemm->second;
    const double fraction = m.value / gemm->first;
    m.parameters["fp32_gemm_gflops"] = gemm->first;
    // Rounded to 4 decimals; the second measurement and its formula carry it in full.
    m.parameters["fraction_of_fp32_gemm"] = std::round(fraction * 1e4) / 1e4;
    Measurement percent = m;
    percent.metric = "fp32_percent_of_gemm";
    percent.unit = "%";
    percent.value = 100 * fraction;
    percent.formula = fmt::format(
        "% = 100 x {:.6g} GFLOP/s (attention, from the median sample) / {:.6g} GFLOP/s (best fp32 "
        "gemm of this run, m={} n={} k={})",
        m.value, gemm->first, source.parameters.value("m", int64_t{0}),
        source.parameters.value("n", int64_t{0}), source.parameters.value("k", int64_t{0}));
    out.push_back(std::move(m));
    out.push_back(std::move(percent));
    return out;
  }
};

}  // namespace

std::optional<std::pair<double, const Measurement*>> BestFp32GemmRate(
    const std::vector<Measurement>& measurements) {
  std::optional<std::pair<double, const Measurement*>> best;
  for (const Measurement& m : measurements) {
    if (m.benchmark != "gemm" || m.metric != "fp32_flops" || !(m.value > 0)) continue;
    if (!best || m.value > best->first) best = std::pair{m.value, &m};
  }
  return best;
}

std::unique_ptr<Benchmark> MakeAttentionBenchmark() {
  return std::make_unique<AttentionBenchmark>();
}

}  // namespace xpuperf::bench

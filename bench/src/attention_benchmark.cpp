#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention.h"
#include "peak_models.h"
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

struct AttentionPoint {
  AttentionShape shape;
  bool bf16 = false;
};

Result<AttentionPoint> ParsePoint(const nlohmann::json& point) {
  AttentionPoint parsed;
  AttentionShape& shape = parsed.shape;
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
  if (point.contains("precision")) {
    const nlohmann::json& precision = point["precision"];
    if (precision != "fp32" && precision != "bf16") {
      return MakeError(
          ErrorCode::kInvalidArgument,
          "attention: 'precision' must be fp32 or bf16 (got " + precision.dump() + ")");
    }
    parsed.bf16 = precision == "bf16";
  }
  XPUPERF_RETURN_IF_ERROR(CheckAttentionShape(shape));
  return parsed;
}

// Q, K, V and O in bytes: 4 each in fp32; in bf16 2 for each input and 4 for O.
double TensorBytes(const AttentionPoint& point) {
  return (point.bf16 ? 3 * 2.0 + 4.0 : 4 * 4.0) * static_cast<double>(point.shape.elements());
}

Status CheckFits(const AttentionPoint& point, const Device& device) {
  const double bytes = TensorBytes(point);
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

// The inputs of one run: fp32 values, and for bf16 their bf16 bit patterns.
struct AttentionInputs {
  std::vector<float> q, k, v;
  std::vector<uint16_t> q16, k16, v16;
};

AttentionInputs MakeInputs(size_t elements, bool bf16) {
  AttentionInputs in;
  in.q.resize(elements);
  in.k.resize(elements);
  in.v.resize(elements);
  FillUniform(in.q, 1);
  FillUniform(in.k, 2);
  FillUniform(in.v, 3);
  if (bf16) {
    const auto round = [](const std::vector<float>& from, std::vector<uint16_t>& to) {
      to.resize(from.size());
      for (size_t i = 0; i < from.size(); ++i) to[i] = Bf16FromFloat(from[i]);
    };
    round(in.q, in.q16);
    round(in.k, in.k16);
    round(in.v, in.v16);
    in.q = in.k = in.v = {};  // the bf16 run reads the bf16 tensors only
  }
  return in;
}

class AttentionBenchmark final : public Benchmark {
 public:
  std::string name() const override { return "attention"; }
  Component component() const override { return Component::kAttention; }
  std::string description() const override {
    return "flash-attention forward, fp32 or bf16 (vdpbf16ps, fp32 softmax; tiled, online "
           "softmax), causal and non-causal; GFLOP/s by 4 s^2 h d b (causal 4 s^2 - 2 s^2) and "
           "the fraction of the run's GEMM of the same precision";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    const double max = double(int64_t{1} << 28);
    return ParameterSchema{IntegerParameter("batch", 1, 1, max),
                           IntegerParameter("heads", 8, 1, max),
                           IntegerParameter("seq_len", 512, 1, max),
                           IntegerParameter("head_dim", 64, 1, max),
                           BooleanParameter("causal", false),
                           ChoiceParameter("precision", "fp32", {"fp32", "bf16"})};
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
    XPUPERF_ASSIGN_OR_RETURN(const AttentionPoint parsed, ParsePoint(point));
    if (parsed.bf16) XPUPERF_RETURN_IF_ERROR(Bf16AttentionSupport(UsableHostFeatures()));
    return CheckFits(parsed, device);
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const AttentionPoint parsed, ParsePoint(point));
    const AttentionShape& shape = parsed.shape;
    if (context.device != nullptr) XPUPERF_RETURN_IF_ERROR(CheckFits(parsed, *context.device));
    if (parsed.bf16) XPUPERF_RETURN_IF_ERROR(Bf16AttentionSupport(UsableHostFeatures()));
    const size_t elements = static_cast<size_t>(shape.elements());
    const AttentionInputs in = MakeInputs(elements, parsed.bf16);
    std::vector<float> o(elements, std::numeric_limits<float>::quiet_NaN());
    const PinnedOpenMpTeam team(context.threads);
    const int threads = team.size();
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        if (parsed.bf16) {
          FlashAttentionBf16Forward(shape, in.q16.data(), in.k16.data(), in.v16.data(), o.data(),
                                    threads, Bf16AttentionKernel::kAvx512Bf16);
        } else {
          FlashAttentionForward(shape, in.q.data(), in.k.data(), in.v.data(), o.data(), threads);
        }
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(parsed.bf16
                                ? VerifyAttentionBf16(shape, in.q16.data(), in.k16.data(),
                                                      in.v16.data(), o.data(), kVerifiedRowsPerHead)
                                : VerifyAttention(shape, in.q.data(), in.k.data(), in.v.data(),
                                                  o.data(), kVerifiedRowsPerHead));

    const std::string precision = parsed.bf16 ? "bf16" : "fp32";
    const double flops = AttentionFlops(shape);
    Measurement m = MakeThroughput(name(), precision + "_flops", samples, flops, true, context);
    m.parameters = point;
    m.parameters["batch"] = shape.batch;
    m.parameters["heads"] = shape.heads;
    m.parameters["seq_len"] = shape.seq_len;
    m.parameters["head_dim"] = shape.head_dim;
    m.parameters["causal"] = shape.causal;
    m.parameters["threads"] = threads;
    if (parsed.bf16) m.parameters["instruction"] = "vdpbf16ps zmm (avx512_bf16)";
    // Q, K, V read and O written once: the minimum traffic of a fused kernel.
    m.bytes_per_repetition = TensorBytes(parsed);
    m.formula = AttentionFlopsFormula(shape) + "; " + m.formula;
    std::vector<Measurement> out;
    const std::string fraction_key = "fraction_of_" + precision + "_gemm";
    const auto gemm = context.earlier != nullptr
                          ? BestGemmRate(*context.earlier, precision + "_flops")
                          : std::nullopt;
    if (!gemm) {
      m.parameters[fraction_key] = "unavailable (no " + precision + " gemm in this run)";
      out.push_back(std::move(m));
      return out;
    }
    const Measurement& source = *gemm->second;
    const double fraction = m.value / gemm->first;
    m.parameters[precision + "_gemm_gflops"] = gemm->first;
    // Rounded to 4 decimals; the second measurement and its formula carry it in full.
    m.parameters[fraction_key] = std::round(fraction * 1e4) / 1e4;
    Measurement percent = m;
    percent.metric = precision + "_percent_of_gemm";
    percent.unit = "%";
    percent.value = 100 * fraction;
    percent.formula = fmt::format(
        "% = 100 x {:.6g} GFLOP/s (attention, from the median sample) / {:.6g} GFLOP/s (best {} "
        "gemm of this run, m={} n={} k={})",
        m.value, gemm->first, precision, source.parameters.value("m", int64_t{0}),
        source.parameters.value("n", int64_t{0}), source.parameters.value("k", int64_t{0}));
    out.push_back(std::move(m));
    out.push_back(std::move(percent));
    return out;
  }
};

}  // namespace

std::optional<std::pair<double, const Measurement*>> BestGemmRate(
    const std::vector<Measurement>& measurements, std::string_view metric) {
  std::optional<std::pair<double, const Measurement*>> best;
  for (const Measurement& m : measurements) {
    if (m.benchmark != "gemm" || m.metric != metric || !(m.value > 0)) continue;
    if (!best || m.value > best->first) best = std::pair{m.value, &m};
  }
  return best;
}

std::unique_ptr<Benchmark> MakeAttentionBenchmark() {
  return std::make_unique<AttentionBenchmark>();
}

}  // namespace xpuperf::bench

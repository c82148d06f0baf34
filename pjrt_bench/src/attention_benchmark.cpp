// pjrt_attention: softmax(Q K^T / sqrt(d)) V composed in StableHLO (two batched dot_generals, the
// softmax with reduce/exponential in f32, optional causal mask), as XLA lowers
// jax.nn.dot_product_attention's "xla" implementation. FLOPs as the CPU attention benchmark counts
// them: 4 s^2 d h b, causal 2 s^2 d h b (the useful half; the program computes and masks the full
// score matrix, as XLA's lowering does). Google's suite omits the batch factor; xpuperf counts it.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "host_array.h"
#include "loop_runner.h"
#include "pjrt_benchmarks_internal.h"
#include "programs.h"

namespace xpuperf::pjrt_bench {
namespace {

using pjrt::ElementType;

struct Shape {
  int64_t batch, heads, seq, dim;
  bool causal;
  int64_t Elements() const { return batch * heads * seq * dim; }
};

// The reference output row (b, h, i) in double from the same rounded inputs.
std::vector<double> ReferenceRow(const Shape& s, const HostArray& q, const HostArray& k,
                                 const HostArray& v, int64_t b, int64_t h, int64_t i) {
  const int64_t base = (b * s.heads + h) * s.seq * s.dim;
  const int64_t keys = s.causal ? i + 1 : s.seq;
  std::vector<double> scores(keys);
  double max_score = -INFINITY;
  for (int64_t j = 0; j < keys; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < s.dim; ++d)
      dot += q.At(base + i * s.dim + d) * k.At(base + j * s.dim + d);
    scores[j] = dot / std::sqrt(static_cast<double>(s.dim));
    max_score = std::max(max_score, scores[j]);
  }
  double sum = 0;
  for (double& x : scores) sum += (x = std::exp(x - max_score));
  std::vector<double> row(s.dim, 0.0);
  for (int64_t j = 0; j < keys; ++j) {
    for (int64_t d = 0; d < s.dim; ++d) row[d] += scores[j] / sum * v.At(base + j * s.dim + d);
  }
  return row;
}

Status Verify(const Shape& s, const HostArray& q, const HostArray& k, const HostArray& v,
              const HostArray& o) {
  // bf16 rounds the probabilities and the output to 8 bits of mantissa; |v| <= 1.
  const double tolerance = o.type() == ElementType::kBF16 ? 2.0 / 128 : 1e-4;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < s.heads; ++h) {
      for (int64_t i : {int64_t{0}, s.seq / 2, s.seq - 1}) {
        const std::vector<double> row = ReferenceRow(s, q, k, v, b, h, i);
        const int64_t base = ((b * s.heads + h) * s.seq + i) * s.dim;
        for (int64_t d = 0; d < s.dim; ++d) {
          if (!(std::fabs(o.At(base + d) - row[d]) <= tolerance)) {
            return MakeError(ErrorCode::kInternal,
                             fmt::format("pjrt_attention: O[{}][{}][{}][{}] = {} but the host "
                                         "reference gives {}",
                                         b, h, i, d, o.At(base + d), row[d]));
          }
        }
      }
    }
  }
  return Status::Ok();
}

class PjrtAttentionBenchmark final : public PjrtBenchmark {
 public:
  PjrtAttentionBenchmark() : PjrtBenchmark(bench::Component::kAttention) {}
  std::string name() const override { return "pjrt_attention"; }
  std::string description() const override {
    return "attention forward on a PJRT device, composed in StableHLO (QK^T, softmax, PV); "
           "FLOPs 4 s^2 d h b (causal half)";
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"batch", 1}, {"heads", 8}, {"seq_len", 1024}, {"head_dim", 64}, {"causal", false}},
            {{"batch", 1}, {"heads", 8}, {"seq_len", 1024}, {"head_dim", 64}, {"causal", true}}};
  }

  std::optional<bench::ParameterSchema> parameter_schema() const override {
    bench::ParameterSchema schema = {bench::IntegerParameter("batch", 1, 1, 1024),
                                     bench::IntegerParameter("heads", 8, 1, 1024),
                                     bench::IntegerParameter("seq_len", 1024, 1, 1 << 17),
                                     bench::IntegerParameter("head_dim", 64, 1, 1024),
                                     bench::BooleanParameter("causal", false),
                                     bench::ChoiceParameter("precision", "bf16", {"fp32", "bf16"})};
    for (bench::ParameterSpec& spec : TargetParameters()) schema.push_back(std::move(spec));
    return schema;
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    Shape s{};
    s.batch = IntegerOf(point, "batch");
    s.heads = IntegerOf(point, "heads");
    s.seq = IntegerOf(point, "seq_len");
    s.dim = IntegerOf(point, "head_dim");
    s.causal = FlagOf(point, "causal");
    const std::string precision = TextOf(point, "precision");
    const ElementType type = *pjrt::ParsePrecision(precision);
    // The program materialises the f32 score matrix: b h s^2 x 4 bytes (several copies).
    const double score_bytes = 4.0 * static_cast<double>(s.batch * s.heads) * s.seq * s.seq;
    XPUPERF_RETURN_IF_ERROR(CheckHostBytes(name(), 4 * score_bytes));
    XPUPERF_ASSIGN_OR_RETURN(PjrtTarget * target, OpenTarget(PluginChoice(point)));
    XPUPERF_ASSIGN_OR_RETURN(const int device, DevicePosition(name(), point, *target));
    const pjrt::Client& client = *target->client;
    XPUPERF_ASSIGN_OR_RETURN(
        pjrt::Executable executable,
        client.Compile(AttentionProgram(s.batch, s.heads, s.seq, s.dim, type, s.causal),
                       {1, {device}}));
    const std::vector<int64_t> dims{s.batch, s.heads, s.seq, s.dim};
    HostArray q(type, s.Elements()), k(type, s.Elements()), v(type, s.Elements());
    q.FillRandom(1);
    k.FillRandom(2);
    v.FillRandom(3);
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer qd, client.FromHost(q.data(), type, dims, device));
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer kd, client.FromHost(k.data(), type, dims, device));
    XPUPERF_ASSIGN_OR_RETURN(pjrt::Buffer vd, client.FromHost(v.data(), type, dims, device));
    LoopRunner runner(client, executable, {{&qd, &kd, &vd}});
    PjrtHostQueue queue;
    XPUPERF_ASSIGN_OR_RETURN(bench::TimedSamples samples, runner.Sample(queue, context.sampling));
    HostArray o(type, s.Elements());
    XPUPERF_RETURN_IF_ERROR(runner.outputs().at(0).at(0).ToHost(o.data(), o.size_bytes()));
    XPUPERF_RETURN_IF_ERROR(Verify(s, q, k, v, o));

    const double full = 4.0 * static_cast<double>(s.seq) * s.seq * s.dim * s.heads * s.batch;
    const double flops = s.causal ? full / 2 : full;
    bench::Measurement m =
        bench::MakeThroughput(name(), precision + "_flops", samples, flops, true, context);
    m.parameters = {{"batch", s.batch},  {"heads", s.heads},   {"seq_len", s.seq},
                    {"head_dim", s.dim}, {"causal", s.causal}, {"precision", precision},
                    {"device", device}};
    m.bytes_per_repetition = 4.0 * static_cast<double>(s.Elements()) * pjrt::ElementBytes(type);
    m.formula =
        fmt::format("FLOP = 4 s^2 d h b{} = {:.6g} per repetition (s={}, d={}, h={}, b={}); ",
                    s.causal ? " / 2 (causal)" : "", flops, s.seq, s.dim, s.heads, s.batch) +
        m.formula;
    Attribute(m, *target, device, queue);
    std::vector<bench::Measurement> out;
    // Relative to this run's best pjrt_gemm of the same precision, as the CPU attention relates to
    // the fp32 GEMM.
    const bench::Measurement* gemm = nullptr;
    if (context.earlier != nullptr) {
      for (const bench::Measurement& e : *context.earlier) {
        if (e.benchmark == "pjrt_gemm" && e.metric == precision + "_flops" && e.value > 0 &&
            (gemm == nullptr || e.value > gemm->value)) {
          gemm = &e;
        }
      }
    }
    if (gemm == nullptr) {
      m.parameters["fraction_of_gemm"] =
          fmt::format("unavailable (no {} pjrt_gemm earlier in this run)", precision);
      out.push_back(std::move(m));
      return out;
    }
    bench::Measurement percent = m;
    percent.metric = precision + "_percent_of_gemm";
    percent.unit = std::string(1, '%');  // not = "%": GCC 12's false -Wrestrict warning
    percent.value = 100 * m.value / gemm->value;
    percent.formula = fmt::format(
        "% = 100 x {:.6g} GFLOP/s (attention) / {:.6g} GFLOP/s (best {} pjrt_gemm of this run, "
        "m={} n={} k={})",
        m.value, gemm->value, precision, gemm->parameters.value("m", int64_t{0}),
        gemm->parameters.value("n", int64_t{0}), gemm->parameters.value("k", int64_t{0}));
    out.push_back(std::move(m));
    out.push_back(std::move(percent));
    return out;
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakePjrtAttentionBenchmark() {
  return std::make_unique<PjrtAttentionBenchmark>();
}

}  // namespace xpuperf::pjrt_bench

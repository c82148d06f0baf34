#include "gpu_benchmark_info.h"

#include <cstdlib>

namespace xpuperf::cuda_bench {
namespace {

using nlohmann::json;

std::vector<GpuBenchmarkInfo> MakeInfos() {
  constexpr int64_t kMiB = int64_t{1} << 20;
  constexpr double kMaxDim = double(int64_t{1} << 31);    // elements per matrix dimension
  constexpr double kMaxMib = double(int64_t{1} << 24);    // 16 TiB
  constexpr double kMaxBytes = double(int64_t{1} << 40);  // as bench's host_transfer
  std::vector<GpuBenchmarkInfo> infos;
  infos.push_back(
      {"gpu_peak_fma",
       bench::Component::kCompute,
       "CUDA FMA chains in registers per precision (fp16/bf16 packed pairs); 2 FLOP "
       "per lane",
       {{{"precision", "fp64"}},
        {{"precision", "fp32"}},
        {{"precision", "fp16"}},
        {{"precision", "bf16"}}},
       {bench::ChoiceParameter("precision", "fp32", {"fp64", "fp32", "fp16", "bf16"})}});
  infos.push_back(
      {"gpu_gemm",
       bench::Component::kCompute,
       "cuBLASLt matmul D = A^T B (fp64, fp32, tf32, fp16, bf16, fp8 e4m3 -> bf16), operands "
       "rotated past the L2, sampled entries checked against an fp64 reference",
       {{{"precision", "fp64"}, {"m", 4096}, {"n", 4096}, {"k", 4096}},
        {{"precision", "fp32"}, {"m", 4096}, {"n", 4096}, {"k", 4096}},
        {{"precision", "tf32"}, {"m", 8192}, {"n", 8192}, {"k", 8192}},
        {{"precision", "fp16"}, {"m", 8192}, {"n", 8192}, {"k", 8192}},
        {{"precision", "bf16"}, {"m", 8192}, {"n", 8192}, {"k", 8192}},
        {{"precision", "fp8"}, {"m", 8192}, {"n", 8192}, {"k", 8192}}},
       {bench::ChoiceParameter("precision", "bf16",
                               {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"}),
        bench::IntegerParameter("m", 4096, 1, kMaxDim),
        bench::IntegerParameter("n", 4096, 1, kMaxDim),
        bench::IntegerParameter("k", 4096, 1, kMaxDim)}});
  infos.push_back(
      {"gpu_stream",
       bench::Component::kMemory,
       "HBM STREAM copy/scale/add/triad on doubles, 16-byte accesses, grid-stride, "
       "arrays >= 8x L2; STREAM byte counting",
       {{{"kernel", "copy"}}, {{"kernel", "scale"}}, {{"kernel", "add"}}, {{"kernel", "triad"}}},
       {bench::ChoiceParameter("kernel", "triad", {"copy", "scale", "add", "triad"}),
        // 0: at least 8x the L2 and 256 MiB per array.
        bench::IntegerParameter("array_mib", 0, 0, kMaxMib)}});
  infos.push_back({"gpu_l2_sweep",
                   bench::Component::kMemory,
                   "read bandwidth over working sets from 256 KiB to 4x L2 (16-byte loads, "
                   "integer checksum verified)",
                   {json::object()},
                   {bench::IntegerParameter("min_kib", 256, 4, kMaxMib * 1024),
                    // Absent: 4x the GPU's L2.
                    bench::IntegerParameter("max_kib", nullptr, 4, kMaxMib * 1024),
                    bench::IntegerParameter("steps_per_octave", 2, 1, 64)}});
  infos.push_back(
      {"gpu_host_transfer",
       bench::Component::kHostTransfer,
       "host <-> GPU copies, pinned/pageable, copy engine (copy: ce) or SM kernel (copy: sm), "
       "timed with events behind a spin kernel as nvbandwidth does; small sizes give latency",
       {{{"direction", "h2d"}, {"host_memory", "pinned"}, {"bytes", 256 * kMiB}, {"copy", "ce"}},
        {{"direction", "d2h"}, {"host_memory", "pinned"}, {"bytes", 256 * kMiB}, {"copy", "ce"}},
        {{"direction", "bidir"}, {"host_memory", "pinned"}, {"bytes", 256 * kMiB}, {"copy", "ce"}},
        {{"direction", "d2d"}, {"host_memory", "pinned"}, {"bytes", 256 * kMiB}, {"copy", "ce"}},
        {{"direction", "h2d"}, {"host_memory", "pinned"}, {"bytes", 256 * kMiB}, {"copy", "sm"}},
        {{"direction", "h2d"}, {"host_memory", "pageable"}, {"bytes", 256 * kMiB}, {"copy", "ce"}},
        {{"direction", "h2d"}, {"host_memory", "pinned"}, {"bytes", 8}, {"copy", "ce"}}},
       {bench::ChoiceParameter("direction", "h2d", {"h2d", "d2h", "bidir", "d2d"}),
        bench::ChoiceParameter("host_memory", "pinned", {"pageable", "pinned"}),
        bench::ChoiceParameter("placement", "local", {"local", "remote"}),
        bench::IntegerParameter("bytes", 64 * kMiB, 1, kMaxBytes),
        bench::ChoiceParameter("copy", "ce", {"ce", "sm"})}});
  infos.push_back({"gpu_collectives",
                   bench::Component::kNetwork,
                   "NCCL collectives over the GPUs of this process (ncclCommInitAll), nccl-tests "
                   "algbw/busbw and #wrong; runs once, on the first GPU's turn",
                   {{{"collective", "all_reduce"}, {"bytes", 256 * kMiB}},
                    {{"collective", "all_gather"}, {"bytes", 256 * kMiB}},
                    {{"collective", "reduce_scatter"}, {"bytes", 256 * kMiB}},
                    {{"collective", "all_to_all"}, {"bytes", 256 * kMiB}},
                    {{"collective", "broadcast"}, {"bytes", 256 * kMiB}},
                    {{"collective", "send_recv"}, {"bytes", 256 * kMiB}}},
                   {bench::ChoiceParameter("collective", "all_reduce",
                                           {"all_reduce", "all_gather", "reduce_scatter",
                                            "all_to_all", "broadcast", "send_recv"}),
                    bench::IntegerParameter("bytes", 64 * kMiB, 4, kMaxBytes)}});
  infos.push_back(
      {"gpu_attention",
       bench::Component::kAttention,
       "flash-attention forward in bf16 (tiled, online softmax, fp32 accumulation), "
       "checked against an fp32 reference on a small shape",
       {{{"batch", 1}, {"heads", 16}, {"seq_len", 4096}, {"head_dim", 128}, {"causal", false}},
        {{"batch", 1}, {"heads", 16}, {"seq_len", 4096}, {"head_dim", 128}, {"causal", true}}},
       {bench::IntegerParameter("batch", 1, 1, kMaxDim),
        bench::IntegerParameter("heads", 16, 1, kMaxDim),
        bench::IntegerParameter("seq_len", 4096, 64, 1 << 20),
        bench::IntegerParameter("head_dim", 128, 64, 128),
        bench::BooleanParameter("causal", false)}});
  return infos;
}

class UnavailableBenchmark final : public bench::Benchmark {
 public:
  UnavailableBenchmark(const GpuBenchmarkInfo& info, std::string reason)
      : info_(info), reason_(std::move(reason)) {}
  std::string name() const override { return info_.name; }
  bench::Component component() const override { return info_.component; }
  std::string description() const override { return info_.description; }
  std::vector<nlohmann::json> default_sweep() const override { return info_.default_sweep; }
  std::optional<bench::ParameterSchema> parameter_schema() const override { return info_.schema; }
  Status CanRun(const Device&, const nlohmann::json&) const override {
    return MakeError(ErrorCode::kUnsupported, reason_);
  }
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json&, bench::RunContext&) override {
    return MakeError(ErrorCode::kUnsupported, reason_);
  }

 private:
  const GpuBenchmarkInfo& info_;
  std::string reason_;
};

}  // namespace

const std::vector<GpuBenchmarkInfo>& GpuBenchmarkInfos() {
  static const std::vector<GpuBenchmarkInfo> infos = MakeInfos();
  return infos;
}

const GpuBenchmarkInfo& GpuBenchmarkInfoFor(const std::string& name) {
  for (const GpuBenchmarkInfo& info : GpuBenchmarkInfos()) {
    if (info.name == name) return info;
  }
  std::abort();
}

std::unique_ptr<bench::Benchmark> MakeUnavailableBenchmark(const GpuBenchmarkInfo& info,
                                                           std::string reason) {
  return std::make_unique<UnavailableBenchmark>(info, std::move(reason));
}

}  // namespace xpuperf::cuda_bench

#include "gpu_benchmark_info.h"

#include <cstdlib>

namespace xpuperf::cuda_bench {
namespace {

using nlohmann::json;

std::vector<GpuBenchmarkInfo> MakeInfos() {
  constexpr int64_t kMiB = int64_t{1} << 20;
  std::vector<GpuBenchmarkInfo> infos;
  infos.push_back({"gpu_peak_fma",
                   bench::Component::kCompute,
                   "CUDA FMA chains in registers per precision (fp16/bf16 packed pairs); 2 FLOP "
                   "per lane",
                   {{{"precision", "fp64"}},
                    {{"precision", "fp32"}},
                    {{"precision", "fp16"}},
                    {{"precision", "bf16"}}}});
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
        {{"precision", "fp8"}, {"m", 8192}, {"n", 8192}, {"k", 8192}}}});
  infos.push_back(
      {"gpu_stream",
       bench::Component::kMemory,
       "HBM STREAM copy/scale/add/triad on doubles, 16-byte accesses, grid-stride, "
       "arrays >= 8x L2; STREAM byte counting",
       {{{"kernel", "copy"}}, {{"kernel", "scale"}}, {{"kernel", "add"}}, {{"kernel", "triad"}}}});
  infos.push_back({"gpu_l2_sweep",
                   bench::Component::kMemory,
                   "read bandwidth over working sets from 256 KiB to 4x L2 (16-byte loads, "
                   "integer checksum verified)",
                   {json::object()}});
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
        {{"direction", "h2d"}, {"host_memory", "pinned"}, {"bytes", 8}, {"copy", "ce"}}}});
  infos.push_back({"gpu_collectives",
                   bench::Component::kNetwork,
                   "NCCL collectives over the GPUs of this process (ncclCommInitAll), nccl-tests "
                   "algbw/busbw and #wrong; runs once, on the first GPU's turn",
                   {{{"collective", "all_reduce"}, {"bytes", 256 * kMiB}},
                    {{"collective", "all_gather"}, {"bytes", 256 * kMiB}},
                    {{"collective", "reduce_scatter"}, {"bytes", 256 * kMiB}},
                    {{"collective", "all_to_all"}, {"bytes", 256 * kMiB}},
                    {{"collective", "broadcast"}, {"bytes", 256 * kMiB}},
                    {{"collective", "send_recv"}, {"bytes", 256 * kMiB}}}});
  infos.push_back(
      {"gpu_attention",
       bench::Component::kAttention,
       "flash-attention forward in bf16 (tiled, online softmax, fp32 accumulation), "
       "checked against an fp32 reference on a small shape",
       {{{"batch", 1}, {"heads", 16}, {"seq_len", 4096}, {"head_dim", 128}, {"causal", false}},
        {{"batch", 1}, {"heads", 16}, {"seq_len", 4096}, {"head_dim", 128}, {"causal", true}}}});
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

// Each rule of the table fires on evidence past its threshold and stays quiet just below it.
#include "xpuperf/trace/findings.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace xpuperf::trace {
namespace {

bool Fires(const RankEvidence& ev, const std::string& rule) {
  auto findings = EvaluateRules(ev);
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.rule == rule; });
}

// A rank where nothing is wrong: GPU busy 90% of a 1 s window, no DataLoader, no syncs.
RankEvidence Healthy() {
  RankEvidence ev;
  ev.temporal.window_ns = 1'000'000'000;
  ev.temporal.busy_ns = 900'000'000;
  ev.temporal.compute_ns = 900'000'000;
  ev.temporal.idle_ns = 100'000'000;
  ev.temporal.gpu_ops = 1000;
  ev.kernels.class_count[0] = 1000;
  ev.cpu_window_ns = 1'000'000'000;
  return ev;
}

TEST(FindingsTest, HealthyRankHasNoFindings) { EXPECT_TRUE(EvaluateRules(Healthy()).empty()); }

TEST(FindingsTest, EveryRuleIsInTheTable) {
  std::vector<std::string> ids;
  for (const auto& r : Rules()) ids.push_back(r.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"input_bound", "launch_bound", "comm_bound",
                                           "low_utilisation", "no_tensor_cores", "pageable_memcpy",
                                           "frequent_sync", "near_oom", "host_bound_path"}));
}

TEST(FindingsTest, InputBound) {
  RankEvidence ev = Healthy();
  IterationStat step;
  step.duration_ns = 100'000'000;
  step.dataloader_ns = 6'000'000;  // 6% > 5%
  ev.iterations.steps.push_back(step);
  EXPECT_TRUE(Fires(ev, "input_bound"));
  ev.iterations.steps[0].dataloader_ns = 4'000'000;  // 4%
  EXPECT_FALSE(Fires(ev, "input_bound"));
  ev.iterations.steps[0].dataloader_ns = 25'000'000;
  auto findings = EvaluateRules(ev);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].severity, Severity::kCritical);
  EXPECT_DOUBLE_EQ(findings[0].value, 0.25);
}

TEST(FindingsTest, LaunchBound) {
  RankEvidence ev = Healthy();
  StreamIdle s;
  s.gaps = 999;                  // the stream with the most ops
  s.host_wait_ns = 160'000'000;  // 16% of the window
  ev.idle.streams.push_back(s);
  StreamIdle side;  // a side stream mostly idle, waiting for the host: not the main stream
  side.gaps = 3;
  side.host_wait_ns = 900'000'000;
  ev.idle.streams.push_back(side);
  LaunchCall call;
  call.name = "cudaLaunchKernel";
  call.cpu_duration.Add(10'000);
  ev.launches.calls.push_back(call);
  EXPECT_TRUE(Fires(ev, "launch_bound"));
  auto findings = EvaluateRules(ev);
  EXPECT_NE(findings[0].evidence.find("cudaLaunchKernel"), std::string::npos);
  ev.idle.streams[0].host_wait_ns = 140'000'000;  // 14%
  EXPECT_FALSE(Fires(ev, "launch_bound"));
}

TEST(FindingsTest, CommBound) {
  RankEvidence ev = Healthy();
  ev.overlap.comm_ns = 300'000'000;
  ev.overlap.overlap_ns = 190'000'000;  // 110 ms exposed = 11%
  EXPECT_TRUE(Fires(ev, "comm_bound"));
  ev.overlap.overlap_ns = 210'000'000;  // 9% exposed
  EXPECT_FALSE(Fires(ev, "comm_bound"));
}

TEST(FindingsTest, LowUtilisation) {
  RankEvidence ev = Healthy();
  ev.temporal.busy_ns = 490'000'000;
  EXPECT_TRUE(Fires(ev, "low_utilisation"));
  ev.temporal.busy_ns = 510'000'000;
  EXPECT_FALSE(Fires(ev, "low_utilisation"));
  ev.temporal.gpu_ops = 0;  // CPU-only trace: nothing to say about the GPU
  ev.temporal.busy_ns = 0;
  EXPECT_FALSE(Fires(ev, "low_utilisation"));
}

TEST(FindingsTest, NoTensorCores) {
  RankEvidence ev = Healthy();
  ev.compute_major = 8;
  ev.gemm_eligible_ops = 12;
  ev.fp32_gemm_ops = {"aten::mm"};
  EXPECT_TRUE(Fires(ev, "no_tensor_cores"));
  ev.tensor_core_kernel_ns = 1000;
  EXPECT_FALSE(Fires(ev, "no_tensor_cores"));
  ev.tensor_core_kernel_ns = 0;
  ev.compute_major = 6;  // Pascal: no tensor cores
  EXPECT_FALSE(Fires(ev, "no_tensor_cores"));
}

TEST(FindingsTest, TensorCoreKernelNames) {
  EXPECT_TRUE(IsTensorCoreKernel(
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"));
  EXPECT_TRUE(IsTensorCoreKernel(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"));
  EXPECT_TRUE(IsTensorCoreKernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"));
  EXPECT_FALSE(IsTensorCoreKernel("volta_sgemm_128x64_nn"));
  EXPECT_FALSE(IsTensorCoreKernel("void at::native::vectorized_elementwise_kernel<4>"));
}

TEST(FindingsTest, PageableMemcpy) {
  RankEvidence ev = Healthy();
  ev.pageable_copies = 3;
  ev.pageable_copy_ns = 30'000;
  EXPECT_TRUE(Fires(ev, "pageable_memcpy"));
  ev.pageable_copies = 0;
  EXPECT_FALSE(Fires(ev, "pageable_memcpy"));
}

TEST(FindingsTest, FrequentSync) {
  RankEvidence ev = Healthy();
  ev.sync_calls = 20;
  ev.sync_ns = 60'000'000;  // 6%
  EXPECT_TRUE(Fires(ev, "frequent_sync"));
  ev.sync_ns = 40'000'000;  // 4%
  EXPECT_FALSE(Fires(ev, "frequent_sync"));
}

TEST(FindingsTest, NearOom) {
  RankEvidence ev = Healthy();
  DeviceMemory d;
  d.device_type = 1;
  d.total_memory = 80'000'000'000;
  d.peak_reserved = 73'000'000'000;  // 91.25%
  d.peak_allocated = 70'000'000'000;
  ev.memory.devices.push_back(d);
  EXPECT_TRUE(Fires(ev, "near_oom"));
  ev.memory.devices[0].peak_reserved = 71'000'000'000;  // 88.75%
  EXPECT_FALSE(Fires(ev, "near_oom"));
  ev.memory.devices[0].total_memory = 0;  // unknown device size: no verdict
  ev.memory.devices[0].peak_reserved = 79'000'000'000;
  EXPECT_FALSE(Fires(ev, "near_oom"));
}

TEST(FindingsTest, HostBoundPath) {
  RankEvidence ev = Healthy();
  CriticalPath& path = ev.critical_path;
  path.length_ns = 100'000'000;
  path.gpu_ops = 40;
  path.host_ns = 51'000'000;  // 51% > 50%
  path.category_ns[static_cast<int>(PathCategory::kCpuOp)] = 51'000'000;
  path.category_ns[static_cast<int>(PathCategory::kGpuCompute)] = 49'000'000;
  path.top.push_back({"aten::nonzero", PathCategory::kCpuOp, 30'000'000});
  EXPECT_TRUE(Fires(ev, "host_bound_path"));
  path.host_ns = 49'000'000;  // 49%
  EXPECT_FALSE(Fires(ev, "host_bound_path"));
  path.host_ns = 90'000'000;
  path.gpu_ops = 0;  // the GPU is not on the path at all: nothing waits for the host
  EXPECT_FALSE(Fires(ev, "host_bound_path"));
  path.gpu_ops = 1;
  auto findings = EvaluateRules(ev);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::kCritical);  // 90% > 80%
  EXPECT_NE(findings[0].evidence.find("aten::nonzero (30.000 ms)"), std::string::npos)
      << findings[0].evidence;
}

}  // namespace
}  // namespace xpuperf::trace

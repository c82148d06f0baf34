#include <gtest/gtest.h>

#include "xpuperf/exporter/pod_attribution.h"

namespace xpuperf::exporter {
namespace {

Device Gpu(int index, std::string uuid) {
  Device d;
  d.backend = "nvidia";
  d.id = "nvidia" + std::to_string(index);
  d.index = index;
  d.uuid = std::move(uuid);
  return d;
}

TEST(PodMappingTest, ResourceNames) {
  EXPECT_TRUE(IsAttributedResource("nvidia.com/gpu", {}));
  EXPECT_TRUE(IsAttributedResource("nvidia.com/mig-1g.10gb", {}));
  EXPECT_TRUE(IsAttributedResource("google.com/tpu", {}));
  EXPECT_FALSE(IsAttributedResource("nvidia.com/gpu.shared", {}));
  EXPECT_TRUE(IsAttributedResource("nvidia.com/gpu.shared", {"nvidia.com/gpu.shared"}));
  EXPECT_FALSE(IsAttributedResource("cpu", {}));
}

TEST(PodMappingTest, NormalisesReplicasAndPartitions) {
  EXPECT_EQ(NormaliseDeviceId("GPU-abc::3"), "GPU-abc");
  EXPECT_EQ(NormaliseDeviceId("nvidia1/gi2/vgpu0"), "nvidia1");
  EXPECT_EQ(NormaliseDeviceId("nvidia0"), "nvidia0");
  EXPECT_EQ(NormaliseDeviceId("3"), "3");
}

TEST(PodMappingTest, MatchesByUuidDeviceNameAndTpuIndex) {
  PodMapping mapping;
  mapping["GPU-abc"] = {PodRef{"train-0", "ml", "worker"}};
  mapping["nvidia1"] = {PodRef{"infer-1", "serving", "server"}, PodRef{"infer-2", "serving", "s"}};
  mapping["1"] = {PodRef{"jax-0", "tpu", "main"}};
  EXPECT_EQ(ConsumersOf(mapping, Gpu(0, "GPU-abc")),
            (std::vector<PodRef>{PodRef{"train-0", "ml", "worker"}}));
  EXPECT_EQ(ConsumersOf(mapping, Gpu(1, "GPU-def")).size(), 2u);
  EXPECT_TRUE(ConsumersOf(mapping, Gpu(2, "GPU-xyz")).empty());
  Device tpu;
  tpu.backend = "tpu";
  tpu.id = "tpu1";
  tpu.index = 1;
  EXPECT_EQ(ConsumersOf(mapping, tpu), (std::vector<PodRef>{PodRef{"jax-0", "tpu", "main"}}));
}

TEST(PodAttributionTest, AbsentSocketMeansNoLabelsAndNoError) {
  PodAttributionOptions options;
  options.socket_path = "/nonexistent/kubelet.sock";
  options.refresh_seconds = 0.05;
  auto attribution = PodAttribution::Start(options);
  EXPECT_FALSE(attribution->state().socket_present);
  EXPECT_TRUE(attribution->state().error.empty());
  EXPECT_TRUE(attribution->AsAttribution()(Gpu(0, "GPU-abc")).empty());
}

}  // namespace
}  // namespace xpuperf::exporter

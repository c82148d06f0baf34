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
  EXPECT_EQ(NormaliseDeviceId("nvidia1/gi2/vgpu0"), "nvidia1/gi2");
  EXPECT_EQ(NormaliseDeviceId("nvidia1/gi2"), "nvidia1/gi2");
  EXPECT_EQ(NormaliseDeviceId("MIG-2a4c::1"), "MIG-2a4c");
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

Device Mig(int parent, int gpu_instance, std::string uuid) {
  Device d = Gpu(parent, "");
  d.id = "nvidia" + std::to_string(parent) + "/gi" + std::to_string(gpu_instance) + "/ci0";
  d.uuid = std::move(uuid);
  d.partition.parent = "nvidia" + std::to_string(parent);
  d.partition.parent_uuid = "GPU-abc";
  d.partition.gpu_instance_id = gpu_instance;
  d.partition.compute_instance_id = 0;
  return d;
}

TEST(PodMappingTest, MatchesMigDevicesByMigUuidAndGkeInstanceName) {
  PodMapping mapping;
  mapping["MIG-111"] = {PodRef{"train-0", "ml", "worker"}};
  mapping["nvidia1/gi9"] = {PodRef{"infer-1", "serving", "server"}};
  EXPECT_EQ(ConsumersOf(mapping, Mig(0, 1, "MIG-111")),
            (std::vector<PodRef>{PodRef{"train-0", "ml", "worker"}}));
  EXPECT_EQ(ConsumersOf(mapping, Mig(1, 9, "MIG-999")),
            (std::vector<PodRef>{PodRef{"infer-1", "serving", "server"}}));
  EXPECT_TRUE(ConsumersOf(mapping, Mig(1, 2, "MIG-222")).empty());
  // The GPU holding the MIG devices is not attributed to their pods.
  EXPECT_TRUE(ConsumersOf(mapping, Gpu(0, "GPU-abc")).empty());
  EXPECT_TRUE(ConsumersOf(mapping, Gpu(1, "GPU-def")).empty());
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

// Compile-only PJRT (xpuperf/pjrt/topology.h): XLA's CPU plugin has no topologies (an error
// value); Google's libtpu describes a named TPU slice and compiles StableHLO for it on a host with
// no TPU (LibtpuTopology runs under libtpu_profiler_test.sh, which sets XPUPERF_TEST_LIBTPU and
// TPU_SKIP_MDS_QUERY).
#include "xpuperf/pjrt/topology.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "plugin_test_support.h"

namespace xpuperf::pjrt {
namespace {

constexpr char kDot[] = R"(module @dot {
  func.func public @main(%a: tensor<128x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<128x64xbf16> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
        : (tensor<128x256xbf16>, tensor<256x64xbf16>) -> tensor<128x64xbf16>
    return %0 : tensor<128x64xbf16>
  }
})";

TEST(PjrtTopologyTest, CpuPluginHasNoTopologies) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message;
  auto topology = Topology::Create(*plugin, "cpu");
  ASSERT_FALSE(topology.ok());
  EXPECT_NE(topology.error().message.find("PJRT_TopologyDescription_Create"), std::string::npos)
      << topology.error().message;
}

TEST(LibtpuTopology, CompilesForANamedTopologyWithoutAChip) {
  const char* libtpu = std::getenv("XPUPERF_TEST_LIBTPU");
  if (libtpu == nullptr || *libtpu == '\0') {
    GTEST_SKIP() << "XPUPERF_TEST_LIBTPU is not set (libtpu_profiler_test.sh sets it)";
  }
  auto plugin = Plugin::Load(libtpu);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message;
  auto topology = Topology::Create(*plugin, "v5e:2x2");
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  EXPECT_EQ((*topology)->platform_name(), "tpu");
  EXPECT_EQ((*topology)->device_ids().size(), 4u);
  EXPECT_NE((*topology)->device_kind().find("TPU"), std::string::npos);
  auto compiled = (*topology)->Compile(kDot);
  ASSERT_TRUE(compiled.ok()) << compiled.error().message;
  EXPECT_EQ(compiled->num_outputs, 1);
  ASSERT_TRUE(compiled->has_memory);
  EXPECT_EQ(compiled->memory.argument_bytes, (128 * 256 + 256 * 64) * 2);
  EXPECT_EQ(compiled->memory.output_bytes, 128 * 64 * 2);
  EXPECT_GT(compiled->memory.generated_code_bytes, 0);
  bool found_flops = false;
  for (const NamedValue& value : compiled->cost_analysis) {
    if (value.name != "flops") continue;
    found_flops = true;
    EXPECT_DOUBLE_EQ(std::get<float>(value.value), 2.0 * 128 * 256 * 64);
  }
  EXPECT_TRUE(found_flops);
  // The plugin's errors, as values: a program that does not parse, more replicas than devices,
  // a topology name libtpu does not know.
  auto broken = (*topology)->Compile("module @m { func.func @main( }");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("PJRT_Compile"), std::string::npos);
  auto too_many = (*topology)->Compile(kDot, 5);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().code, ErrorCode::kInvalidArgument);
  auto unknown = Topology::Create(*plugin, "v9z:1x1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("v9z"), std::string::npos) << unknown.error().message;
}

}  // namespace
}  // namespace xpuperf::pjrt

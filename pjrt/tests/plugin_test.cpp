#include "xpuperf/pjrt/plugin.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "plugin_test_support.h"
#include "xpuperf/pjrt/client.h"

namespace xpuperf::pjrt {
namespace {

std::string Fake(const char* variant) {
  return std::string(XPUPERF_FAKE_PJRT_DIR) + "/fake_pjrt_" + variant + ".so";
}

void ExpectOneLine(const Error& error) {
  EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
}

TEST(PluginLoad, MissingFileIsNotFound) {
  auto plugin = Plugin::Load("/nonexistent/libtpu.so");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.error().code, ErrorCode::kNotFound);
  EXPECT_NE(plugin.error().message.find("/nonexistent/libtpu.so"), std::string::npos);
}

TEST(PluginLoad, DirectoryIsRefused) {
  auto plugin = Plugin::Load("/tmp");
  ASSERT_FALSE(plugin.ok());
  EXPECT_NE(plugin.error().message.find("not a regular file"), std::string::npos);
}

TEST(PluginLoad, LibraryWithoutGetPjrtApiIsNotAPlugin) {
  auto plugin = Plugin::Load(Fake("not_a_plugin"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(plugin.error().message.find("not a PJRT plugin: it exports no GetPjrtApi"),
            std::string::npos)
      << plugin.error().message;
  ExpectOneLine(plugin.error());
}

TEST(PluginLoad, TextFileIsNotALibrary) {
  auto plugin = Plugin::Load(std::string(XPUPERF_PJRT_PLUGIN_PATH_FILE) + ".not-there");
  EXPECT_FALSE(plugin.ok());
  auto text = Plugin::Load("/etc/hostname");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(text.error().message.find("cannot load"), std::string::npos) << text.error().message;
  ExpectOneLine(text.error());
}

TEST(PluginLoad, WrongMajorVersionIsRefused) {
  auto plugin = Plugin::Load(Fake("wrong_major"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(plugin.error().message.find("PJRT API 1.81 is not supported"), std::string::npos)
      << plugin.error().message;
}

TEST(PluginLoad, MinorBeforeTheRearrangementIsRefused) {
  auto plugin = Plugin::Load(Fake("old_minor"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_NE(plugin.error().message.find("PJRT API 0.40 is not supported"), std::string::npos)
      << plugin.error().message;
}

TEST(PluginLoad, ShortTableIsRefused) {
  auto plugin = Plugin::Load(Fake("short_table"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_NE(plugin.error().message.find("lacks calls this build needs"), std::string::npos)
      << plugin.error().message;
}

TEST(CpuPlugin, LoadsWithVersionAndAttributes) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message;
  EXPECT_EQ((*plugin)->version().major, 0);
  EXPECT_GE((*plugin)->version().minor, kMinimumApiMinor);
  bool has_stablehlo = false;
  for (const NamedValue& a : (*plugin)->attributes()) {
    has_stablehlo |= a.name == "stablehlo_current_version";
  }
  EXPECT_TRUE(has_stablehlo);
  auto again = Plugin::Load(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), plugin->get());  // loaded once per process
}

TEST(CpuPlugin, WrongOptionTypeIsThePluginsError) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok());
  // xla-cpu-pjrt 0.0.1 ignores unknown names but checks the types of the options it knows.
  auto client = (*plugin)->CreateClient({{"cpu_device_count", std::string("four")}});
  // That plugin throws a C++ exception through the C API here; it must arrive as an error.
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().message.rfind("PJRT_Client_Create: ", 0), 0u) << client.error().message;
}

TEST(CpuPlugin, CompilesRunsAndReadsBack) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok());
  auto client = (*plugin)->CreateClient({{"cpu_device_count", int64_t{2}}});
  ASSERT_TRUE(client.ok()) << client.error().message;
  EXPECT_EQ((*client)->platform_name(), "cpu");
  ASSERT_EQ((*client)->devices().size(), 2u);
  EXPECT_EQ((*client)->devices()[1].id, 1);
  const char* program = R"(module @t {
  func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %a, %b : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
})";
  auto executable = (*client)->Compile(program, {1, {1}});
  ASSERT_TRUE(executable.ok()) << executable.error().message;
  EXPECT_EQ(executable->num_outputs(), 1);
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  auto ad = (*client)->FromHost(a, ElementType::kF32, {4}, 1);
  auto bd = (*client)->FromHost(b, ElementType::kF32, {4}, 1);
  ASSERT_TRUE(ad.ok() && bd.ok());
  auto outputs = executable->Execute({{&*ad, &*bd}});
  ASSERT_TRUE(outputs.ok()) << outputs.error().message;
  float c[4] = {};
  ASSERT_TRUE((*outputs)[0][0].ToHost(c, sizeof(c)).ok());
  EXPECT_EQ(c[0], 5);
  EXPECT_EQ(c[3], 32);
  float wrong_size[2];
  EXPECT_FALSE((*outputs)[0][0].ToHost(wrong_size, sizeof(wrong_size)).ok());
  bool has_flops = false;
  for (const NamedValue& v : executable->CostAnalysis()) has_flops |= v.name == "flops";
  EXPECT_TRUE(has_flops);
}

// StableHLO bytecode, as JAX writes it (the pjrt_plugin_environment fixture writes both files next
// to plugin_path.txt): a plain MLIR bytecode module and a portable artifact (jax.export), each
// compiled from its bytes and run: f(a, b) = a . b + 1.
TEST(CpuPlugin, CompilesJaxBytecode) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok());
  auto client = (*plugin)->CreateClient({});
  ASSERT_TRUE(client.ok()) << client.error().message;
  const std::string dir = std::filesystem::path(XPUPERF_PJRT_PLUGIN_PATH_FILE).parent_path();
  for (const char* name : {"dot_bytecode.mlirbc", "dot_portable.mlirbc"}) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    ASSERT_TRUE(in) << dir << "/" << name << " is missing (pjrt_plugin_environment writes it)";
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.rfind("ML\xefR", 0), 0u) << name << " is not MLIR bytecode";
    auto executable = (*client)->Compile(bytes, {});
    ASSERT_TRUE(executable.ok()) << name << ": " << executable.error().message;
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1};
    auto ad = (*client)->FromHost(a, ElementType::kF32, {2, 3}, 0);
    auto bd = (*client)->FromHost(b, ElementType::kF32, {3, 2}, 0);
    ASSERT_TRUE(ad.ok() && bd.ok());
    auto outputs = executable->Execute({{&*ad, &*bd}});
    ASSERT_TRUE(outputs.ok()) << outputs.error().message;
    float c[4] = {};
    ASSERT_TRUE((*outputs)[0][0].ToHost(c, sizeof(c)).ok());
    // [[1 2 3] [4 5 6]] . [[1 0] [0 1] [1 1]] = [[4 5] [10 11]], + 1
    EXPECT_EQ(c[0], 5) << name;
    EXPECT_EQ(c[1], 6) << name;
    EXPECT_EQ(c[2], 11) << name;
    EXPECT_EQ(c[3], 12) << name;
  }
}

TEST(CpuPlugin, CompileErrorIsOneLineWithThePluginsMessage) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok());
  auto client = (*plugin)->CreateClient({});
  ASSERT_TRUE(client.ok());
  auto executable = (*client)->Compile("module { not.an_op }", {});
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(executable.error().message.find("PJRT_Client_Compile"), std::string::npos);
  ExpectOneLine(executable.error());
  EXPECT_FALSE((*client)->Compile("module {}", {3, {}}).ok());  // more replicas than devices
}

}  // namespace
}  // namespace xpuperf::pjrt

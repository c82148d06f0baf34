#include "xpuperf/pjrt/discovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace xpuperf::pjrt {
namespace {

namespace fs = std::filesystem;

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("xpuperf-pjrt-discovery-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Touch(const std::string& relative) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "x";
    return path.string();
  }
  DiscoveryEnvironment Empty() const {
    DiscoveryEnvironment e;
    e.system_site_globs.clear();
    return e;
  }
  fs::path root_;
};

TEST_F(DiscoveryTest, FindsThePluginsOfAVirtualEnvironmentInOrder) {
  const std::string cpu =
      Touch("venv/lib/python3.11/site-packages/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so");
  const std::string tpu = Touch("venv/lib/python3.11/site-packages/libtpu/libtpu.so");
  const std::string cuda =
      Touch("venv/lib/python3.11/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so");
  DiscoveryEnvironment e = Empty();
  e.virtual_env = (root_ / "venv").string();
  const auto found = FindPlugins(e);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].kind, "tpu");
  EXPECT_EQ(found[0].path, tpu);
  EXPECT_EQ(found[1].kind, "cuda");
  EXPECT_EQ(found[1].path, cuda);
  EXPECT_EQ(found[2].kind, "cpu");
  EXPECT_EQ(found[2].path, cpu);
  EXPECT_EQ(found[2].source, "site-packages of $VIRTUAL_ENV");
}

TEST_F(DiscoveryTest, ExplicitVariablesComeFirstAndDuplicatesOnce) {
  const std::string tpu = Touch("opt/libtpu.so");
  const std::string mine = Touch("mine/my_plugin.so");
  DiscoveryEnvironment e = Empty();
  e.xpuperf_pjrt_plugin = mine;
  e.tpu_library_path = tpu;
  e.pjrt_names_and_library_paths = "tpu:" + tpu + ",other:" + Touch("o/other.so");
  const auto found = FindPlugins(e);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].path, mine);
  EXPECT_EQ(found[0].source, "XPUPERF_PJRT_PLUGIN");
  EXPECT_EQ(found[1].kind, "tpu");
  EXPECT_EQ(found[1].source, "TPU_LIBRARY_PATH");
  EXPECT_EQ(found[2].kind, "other");
}

TEST_F(DiscoveryTest, MissingFilesAreNotListed) {
  DiscoveryEnvironment e = Empty();
  e.tpu_library_path = (root_ / "absent/libtpu.so").string();
  EXPECT_TRUE(FindPlugins(e).empty());
  auto resolved = ResolvePlugin("tpu", e);
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(resolved.error().message.find("no PJRT plugin of kind 'tpu' found"), std::string::npos);
}

TEST_F(DiscoveryTest, ResolvesKindsAndPaths) {
  const std::string cpu = Touch("site/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so");
  DiscoveryEnvironment e = Empty();
  e.site_packages = {(root_ / "site").string()};
  auto by_kind = ResolvePlugin("cpu", e);
  ASSERT_TRUE(by_kind.ok());
  EXPECT_EQ(by_kind->path, cpu);
  auto first = ResolvePlugin("", e);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->kind, "cpu");
  auto by_path = ResolvePlugin("/somewhere/libtpu.so", e);
  ASSERT_TRUE(by_path.ok());
  EXPECT_EQ(by_path->kind, "tpu");
}

TEST(KindFromPath, NamesThePluginsJaxShips) {
  EXPECT_EQ(KindFromPath("/x/libtpu.so"), "tpu");
  EXPECT_EQ(KindFromPath("/x/xla_cuda_plugin.so"), "cuda");
  EXPECT_EQ(KindFromPath("/x/xla_gpu_pjrt.so"), "cuda");
  EXPECT_EQ(KindFromPath("xla_cpu_pjrt.so"), "cpu");
  EXPECT_EQ(KindFromPath("/x/other.so"), "");
}

}  // namespace
}  // namespace xpuperf::pjrt

// The plugin profiler extension: absent from XLA's CPU plugin 0.0.1 and the fake plugins (said
// so in one line), present in Google's libtpu, whose profiler runs without a TPU and returns an
// XSpace (LibtpuProfiler runs under libtpu_profiler_test.sh, which sets XPUPERF_TEST_LIBTPU).
#include "xpuperf/pjrt/profiler.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "plugin_test_support.h"
#include "xpuperf/pjrt/plugin.h"

namespace xpuperf::pjrt {
namespace {

TEST(PluginProfilerTest, NoTableNoExtension) {
  EXPECT_FALSE(HasProfilerExtension(nullptr));
  auto profiler = PluginProfiler::Create(nullptr);
  ASSERT_FALSE(profiler.ok());
  EXPECT_EQ(profiler.error().code, ErrorCode::kUnsupported);
}

TEST(PluginProfilerTest, CpuPluginHasNone) {
  XPUPERF_REQUIRE_CPU_PLUGIN(path);
  auto plugin = Plugin::Load(path);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message;
  EXPECT_FALSE(HasProfilerExtension((*plugin)->api()));
  auto profiler = PluginProfiler::Create((*plugin)->api());
  ASSERT_FALSE(profiler.ok());
  EXPECT_EQ(profiler.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(profiler.error().message, "unsupported: plugin has no profiler extension");
}

TEST(LibtpuProfiler, StartStopCollectGivesAnXSpace) {
  const char* libtpu = std::getenv("XPUPERF_TEST_LIBTPU");
  if (libtpu == nullptr || *libtpu == '\0') {
    GTEST_SKIP() << "XPUPERF_TEST_LIBTPU is not set (libtpu_profiler_test.sh sets it)";
  }
  auto plugin = Plugin::Load(libtpu);
  ASSERT_TRUE(plugin.ok()) << plugin.error().message;
  ASSERT_TRUE(HasProfilerExtension((*plugin)->api()));
  auto profiler = PluginProfiler::Create((*plugin)->api());
  ASSERT_TRUE(profiler.ok()) << profiler.error().message;
  ASSERT_TRUE((*profiler)->Start().ok());
  ASSERT_TRUE((*profiler)->Stop().ok());
  auto xspace = (*profiler)->CollectXSpace();
  ASSERT_TRUE(xspace.ok()) << xspace.error().message;
  // An XSpace starts with its first plane (field 1, length-delimited: tag 0x0a), and libtpu
  // names its planes "/device:..." or "/host:...".
  ASSERT_GT(xspace->size(), 16u);
  EXPECT_EQ(static_cast<unsigned char>((*xspace)[0]), 0x0a);
  EXPECT_TRUE(xspace->find("/device:") != std::string::npos ||
              xspace->find("/host:") != std::string::npos);
  // libtpu hands a session's data over once: a second collection is an empty XSpace (and its
  // stray zero byte).
  auto again = (*profiler)->CollectXSpace();
  ASSERT_TRUE(again.ok());
  EXPECT_LE(again->size(), 1u);
}

}  // namespace
}  // namespace xpuperf::pjrt

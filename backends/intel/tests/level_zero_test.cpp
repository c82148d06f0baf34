// Level Zero Sysman for what i915 sysfs lacks, against fake libze_loader.so.1 builds: a current
// loader (zesInit), a legacy one (ZES_ENABLE_SYSMAN=1 + zeInit) and an API 2.0 one to refuse.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "drm_test_tree.h"
#include "level_zero_library.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/intel/intel_backend.h"

namespace xpuperf::intel {
namespace {

namespace m = metrics;
using drm::testing::ReadingOf;
using drm::testing::RecordedFdIsDrm;
using drm::testing::ValueOf;

std::unique_ptr<Backend> OpenA770(const std::string& library) {
  BackendOptions options;
  options.root = std::string(XPUPERF_TEST_DATA_DIR) + "/trees/arc-a770-i915";
  IntelBackendConfig config;
  config.is_drm_fd = RecordedFdIsDrm;
  config.level_zero_library = library;
  auto backend = CreateIntelBackend(options, config);
  EXPECT_TRUE(backend.ok());
  return backend.ok() ? std::move(backend).value() : nullptr;
}

void ExpectSysmanValues(const std::string& library) {
  auto backend = OpenA770(library);
  ASSERT_NE(backend, nullptr);
  // The opening snapshot took the first engine sample; this is the second: 400 / 1000.
  const auto r = backend->Collect({});
  EXPECT_DOUBLE_EQ(ValueOf(ReadingOf(r, m::kDutyCycle, "intel0"), "intel0"), 40.0);
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kMemoryTotal, "intel0"), "intel0"), 17179869184.0);
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kMemoryUsed, "intel0"), "intel0"), 4294967296.0);  // 16 - 12
  const Reading& errors = ReadingOf(r, m::kErrors, "intel0");
  EXPECT_EQ(errors.samples.size(), 7u);  // the correctable set; the uncorrectable one is refused
  EXPECT_EQ(ValueOf(errors, "intel0", {{"type", "correctable_compute"}}), 3);
  EXPECT_EQ(ValueOf(errors, "intel0", {{"type", "correctable_cache"}}), 1);
  EXPECT_EQ(ValueOf(errors, "intel0", {{"type", "correctable_reset"}}), 0);
}

TEST(LevelZero, CurrentLoaderWithZesInit) { ExpectSysmanValues(XPUPERF_FAKE_ZE_CURRENT); }

TEST(LevelZero, LegacyLoaderThroughTheEnvironment) {
  ExpectSysmanValues(XPUPERF_FAKE_ZE_LEGACY);
  auto library = LevelZeroLibrary::Open({XPUPERF_FAKE_ZE_LEGACY});
  ASSERT_TRUE(library.ok());
  EXPECT_EQ((*library)->description(), "Level Zero 1.4 (ZES_ENABLE_SYSMAN=1)");
}

TEST(LevelZero, ApiMajor2IsRefusedBeforeAnySysmanCall) {
  void* fake = ::dlopen(XPUPERF_FAKE_ZE_V2, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr) << ::dlerror();
  auto sysman_calls = reinterpret_cast<int (*)()>(::dlsym(fake, "fake_ze_sysman_calls"));
  ASSERT_NE(sysman_calls, nullptr);
  auto backend = OpenA770(XPUPERF_FAKE_ZE_V2);
  ASSERT_NE(backend, nullptr);
  const auto r = backend->Collect({});
  const Reading& errors = ReadingOf(r, m::kErrors, "intel0");
  EXPECT_EQ(errors.state, ReadingState::kUnsupported);
  EXPECT_NE(
      errors.reason.find(std::string("Level Zero: Level Zero API 2.0 of ") + XPUPERF_FAKE_ZE_V2 +
                         ": xpuperf reads the Sysman structs of the 1.x spec only"),
      std::string::npos)
      << errors.reason;
  EXPECT_EQ(ReadingOf(r, m::kMemoryUsed, "intel0").state, ReadingState::kUnsupported);
  EXPECT_EQ(sysman_calls(), 0);
  ::dlclose(fake);
}

TEST(LevelZero, MissingLoader) {
  auto library = LevelZeroLibrary::Open({"/nonexistent/libze_loader.so.1"});
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(library.error().message.rfind("/nonexistent/libze_loader.so.1 not found (", 0), 0u);
  EXPECT_EQ(DescribeZeResult(0x70010000), "0x70010000 (insufficient permissions)");
}

}  // namespace
}  // namespace xpuperf::intel

// AMD SMI as the fallback for what the files lack, against fake libamd_smi.so builds of the 24.x
// and 26.x layouts and a 25.x one that must be refused before any struct is read.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "amd_smi_library.h"
#include "drm_test_tree.h"
#include "xpuperf/amd/amd_backend.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::amd {
namespace {

namespace m = metrics;
using drm::testing::ReadingOf;
using drm::testing::RecordedFdIsDrm;
using drm::testing::TempTree;
using drm::testing::ValueOf;

constexpr const char* kDevice = "/sys/class/drm/card1/device";
constexpr const char* kHwmon = "/sys/class/drm/card1/device/hwmon/hwmon3";

// The MI300X tree without hwmon power and temperatures, and with a gpu_metrics revision xpuperf
// does not decode: power, temperature and energy then have no file source.
class WithoutFiles {
 public:
  WithoutFiles() : tree_(std::string(XPUPERF_TEST_DATA_DIR) + "/trees/mi300x") {
    for (const char* f : {"/power1_input", "/temp2_input", "/temp3_input"}) {
      tree_.Remove(std::string(kHwmon) + f);
    }
    tree_.Copy(std::string(XPUPERF_TEST_DATA_DIR) + "/gpu_metrics/v1_9-unknown.bin",
               std::string(kDevice) + "/gpu_metrics");
  }
  std::vector<Reading> Collect(const std::string& library) {
    BackendOptions options;
    options.root = tree_.root();
    options.clock = &clock_;
    AmdBackendConfig config;
    config.is_drm_fd = RecordedFdIsDrm;
    config.amd_smi_library = library;
    auto backend = CreateAmdBackend(options, config);
    EXPECT_TRUE(backend.ok());
    if (!backend.ok()) return {};
    return (*backend)->Collect(
        {std::string(m::kPower), std::string(m::kTemperature), std::string(m::kEnergy)});
  }

 private:
  TempTree tree_;
  ManualClock clock_;
};

// Calls the fake received besides amdsmi_get_lib_version (the library stays loaded meanwhile).
class FakeCalls {
 public:
  explicit FakeCalls(const char* path) : handle_(::dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    EXPECT_NE(handle_, nullptr) << ::dlerror();
    count_ = reinterpret_cast<int (*)()>(::dlsym(handle_, "fake_amdsmi_other_calls"));
  }
  ~FakeCalls() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  int count() const { return count_ == nullptr ? -1 : count_(); }

 private:
  void* handle_;
  int (*count_)() = nullptr;
};

void ExpectLibraryValues(const std::vector<Reading>& r, double watts) {
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kPower, "amd0"), "amd0", {{"domain", "gpu"}}), watts);
  const Reading& temps = ReadingOf(r, m::kTemperature, "amd0");
  EXPECT_EQ(temps.samples.size(), 2u);  // no edge sensor on an MI300X
  EXPECT_EQ(ValueOf(temps, "amd0", {{"sensor", "junction"}}), 61);
  EXPECT_EQ(ValueOf(temps, "amd0", {{"sensor", "memory"}}), 54);
  EXPECT_DOUBLE_EQ(ValueOf(ReadingOf(r, m::kEnergy, "amd0"), "amd0", {{"domain", "gpu"}}),
                   6553600.0 * static_cast<double>(15.259f) / 1e6);
}

TEST(AmdSmi, Version24Layout) {
  WithoutFiles tree;
  ExpectLibraryValues(tree.Collect(XPUPERF_FAKE_AMD_SMI_24), 350);  // current_socket_power
}

TEST(AmdSmi, Version26Layout) {
  WithoutFiles tree;
  ExpectLibraryValues(tree.Collect(XPUPERF_FAKE_AMD_SMI_26), 351);  // at its 26.x offset
}

TEST(AmdSmi, UnknownVersionIsRefusedBeforeAnyStructIsRead) {
  FakeCalls calls(XPUPERF_FAKE_AMD_SMI_25);
  WithoutFiles tree;
  const auto r = tree.Collect(XPUPERF_FAKE_AMD_SMI_25);
  const Reading& power = ReadingOf(r, m::kPower, "amd0");
  EXPECT_EQ(power.state, ReadingState::kUnsupported);
  EXPECT_NE(power.reason.find(std::string("AMD SMI: AMD SMI ") + XPUPERF_FAKE_AMD_SMI_25 +
                              " is version 25.1: xpuperf reads the structs of 24.x and 26.x only"),
            std::string::npos)
      << power.reason;
  EXPECT_EQ(ReadingOf(r, m::kTemperature, "amd0").state, ReadingState::kUnsupported);
  EXPECT_EQ(calls.count(), 0);  // not even amdsmi_init
}

TEST(AmdSmi, NotOpenedWhileTheFilesAnswer) {
  FakeCalls calls(XPUPERF_FAKE_AMD_SMI_24);
  TempTree tree(std::string(XPUPERF_TEST_DATA_DIR) + "/trees/mi300x");
  BackendOptions options;
  options.root = tree.root();
  AmdBackendConfig config;
  config.is_drm_fd = RecordedFdIsDrm;
  config.amd_smi_library = XPUPERF_FAKE_AMD_SMI_24;
  auto backend = CreateAmdBackend(options, config);
  ASSERT_TRUE(backend.ok());
  const auto r = (*backend)->Collect({});
  EXPECT_EQ(ValueOf(ReadingOf(r, m::kPower, "amd0"), "amd0", {{"domain", "gpu"}}), 356);  // hwmon
  EXPECT_EQ(calls.count(), 0);
}

TEST(AmdSmi, MissingLibrary) {
  WithoutFiles tree;
  const auto r = tree.Collect("/nonexistent/libamd_smi.so");
  const Reading& energy = ReadingOf(r, m::kEnergy, "amd0");
  EXPECT_EQ(energy.state, ReadingState::kUnsupported);
  EXPECT_NE(energy.reason.find("AMD SMI: /nonexistent/libamd_smi.so not found ("),
            std::string::npos)
      << energy.reason;
}

// XPUPERF_AMDSMI_LIBRARY (or the configured path) naming a truncated file or another library is
// read and refused before dlopen: a fault in the loader or another library's constructors never.
TEST(AmdSmi, UnusableLibraryFileIsRefusedBeforeLoading) {
  std::ifstream in(XPUPERF_FAKE_AMD_SMI_24, std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(whole.size(), 4096u);
  const std::string dir = ::testing::TempDir();
  const std::string truncated = dir + "/xpuperf-truncated-libamd_smi.so";
  std::ofstream(truncated, std::ios::binary) << whole.substr(0, whole.size() / 3);
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {truncated, "truncated"}, {"/proc/self/exe", "it defines none of amdsmi_init"}}) {
    WithoutFiles tree;
    const auto r = tree.Collect(path);
    const Reading& energy = ReadingOf(r, m::kEnergy, "amd0");
    EXPECT_EQ(energy.state, ReadingState::kUnsupported);
    EXPECT_NE(energy.reason.find("AMD SMI: " + path + " is not a usable AMD SMI library: " + why),
              std::string::npos)
        << energy.reason;
  }
  std::remove(truncated.c_str());
}

TEST(AmdSmi, BdfIds) {
  EXPECT_EQ(BdfIdToBusId(0xc00), "0000:0c:00.0");
  EXPECT_EQ(BdfIdToBusId((uint64_t{1} << 32) | (0xc1u << 8) | (3u << 3) | 1u), "0001:c1:03.1");
  EXPECT_EQ(AmdSmiLibraryCandidates("/x/libamd_smi.so"),
            std::vector<std::string>{"/x/libamd_smi.so"});
}

}  // namespace
}  // namespace xpuperf::amd

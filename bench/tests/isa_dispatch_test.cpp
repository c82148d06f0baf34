// Which peak kernel runs where: CPUID words and cpuinfo flags of CPUs this machine is not, and the
// reasons a precision is skipped.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "xpuperf/bench/isa.h"
#include "xpuperf/bench/peak_kernels.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {
namespace {

CpuInfo Fixture(const std::string& name) {
  std::ifstream in(std::string(XPUPERF_TEST_DATA_DIR) + "/cpuinfo/" + name + ".txt");
  std::stringstream text;
  text << in.rdbuf();
  auto info = ParseCpuInfo(text.str());
  EXPECT_TRUE(info.ok()) << name;
  return info.ok() ? *info : CpuInfo{};
}

IsaFeatures FixtureFeatures(const std::string& name) {
  const CpuInfo info = Fixture(name);
  return info.cpus.empty() ? IsaFeatures() : FeaturesFromFlags(info.cpus.front().flags);
}

std::string Isa(Precision precision, const IsaFeatures& features) {
  auto kernel = SelectPeakKernel(precision, features);
  return kernel.ok() ? std::string((*kernel)->isa) : kernel.error().message;
}

TEST(IsaDispatchTest, RecordedCpuidOfTheZen3DevelopmentVm) {
  // Recorded on the AMD EPYC Milan VM (CPUID.1:ECX, CPUID.7.0:EBX/ECX/EDX, CPUID.7.1:EAX, XCR0).
  const CpuidWords milan{0xfffa3203, 0x219c07ab, 0x00400684, 0x00000010, 0x0, 0x7};
  const IsaFeatures f = FeaturesFromCpuid(milan);
  EXPECT_EQ(f.ToString(), "fma avx2");
  EXPECT_EQ(Isa(Precision::kFp64, f), "avx2_fma");
  EXPECT_EQ(Isa(Precision::kInt8, f), "avx2");
  EXPECT_EQ(Isa(Precision::kBf16, f),
            "unsupported: CPU lacks avx512_bf16 and amx_bf16 (no bf16 peak kernel runs here)");
  EXPECT_EQ(Isa(Precision::kFp16, f),
            "unsupported: CPU lacks avx512_fp16 (no fp16 peak kernel runs here)");
}

TEST(IsaDispatchTest, CpuidNeedsTheOsToEnableTheRegisterState) {
  // Zen 5 feature bits: AVX-512F/BW/VL, AVX512_VNNI, AVX512_BF16, AVX_VNNI.
  CpuidWords zen5{(1u << 12) | (1u << 27) | (1u << 28),
                  (1u << 5) | (1u << 16) | (1u << 30) | (1u << 31),
                  1u << 11,
                  0,
                  (1u << 4) | (1u << 5),
                  0xe7};
  EXPECT_EQ(FeaturesFromCpuid(zen5).ToString(),
            "fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_vnni avx_vnni");
  // A kernel that leaves zmm state off (XCR0 bits 5-7 clear): no AVX-512, AVX_VNNI stays.
  zen5.xcr0 = 0x7;
  EXPECT_EQ(FeaturesFromCpuid(zen5).ToString(), "fma avx2 avx_vnni");
  // No OSXSAVE: nothing beyond SSE.
  zen5.leaf1_ecx &= ~(1u << 27);
  EXPECT_EQ(FeaturesFromCpuid(zen5).ToString(), "");
  // Sapphire Rapids AMX bits count only with XTILECFG and XTILEDATA in XCR0.
  CpuidWords spr{(1u << 12) | (1u << 27) | (1u << 28),
                 (1u << 5) | (1u << 16) | (1u << 30) | (1u << 31),
                 1u << 11,
                 (1u << 22) | (1u << 23) | (1u << 24) | (1u << 25),
                 (1u << 4) | (1u << 5),
                 0x600e7};
  EXPECT_TRUE(FeaturesFromCpuid(spr).Has(IsaExtension::kAmxBf16));
  EXPECT_TRUE(FeaturesFromCpuid(spr).Has(IsaExtension::kAvx512Fp16));
  spr.xcr0 = 0xe7;
  EXPECT_FALSE(FeaturesFromCpuid(spr).Has(IsaExtension::kAmxTile));
}

TEST(IsaDispatchTest, WidestKernelPerPrecisionOnRecordedCpus) {
  struct Expected {
    const char* fixture;
    const char* fp64;
    const char* bf16;
    const char* fp16;
    const char* int8;
  };
  const Expected cases[] = {
      {"zen3-epyc-milan-vm", "avx2_fma",
       "unsupported: CPU lacks avx512_bf16 and amx_bf16 (no bf16 peak kernel runs here)",
       "unsupported: CPU lacks avx512_fp16 (no fp16 peak kernel runs here)", "avx2"},
      {"zen4-epyc-9654", "avx512f", "avx512_bf16",
       "unsupported: CPU lacks avx512_fp16 (no fp16 peak kernel runs here)", "avx512_vnni"},
      {"zen5-ryzen-9950x", "avx512f", "avx512_bf16",
       "unsupported: CPU lacks avx512_fp16 (no fp16 peak kernel runs here)", "avx512_vnni"},
      {"sapphire-rapids-8480", "avx512f", "amx_bf16", "avx512_fp16", "amx_int8"},
      {"skylake-sp-silver-4114", "avx512f",
       "unsupported: CPU lacks avx512_bf16 and amx_bf16 (no bf16 peak kernel runs here)",
       "unsupported: CPU lacks avx512_fp16 (no fp16 peak kernel runs here)", "avx2"},
  };
  for (const Expected& c : cases) {
    const IsaFeatures f = FixtureFeatures(c.fixture);
    EXPECT_EQ(Isa(Precision::kFp64, f), c.fp64) << c.fixture;
    EXPECT_EQ(Isa(Precision::kFp32, f), c.fp64) << c.fixture;
    EXPECT_EQ(Isa(Precision::kBf16, f), c.bf16) << c.fixture;
    EXPECT_EQ(Isa(Precision::kFp16, f), c.fp16) << c.fixture;
    EXPECT_EQ(Isa(Precision::kInt8, f), c.int8) << c.fixture;
  }
}

TEST(IsaDispatchTest, ANamedIsaIsChosenOrRefused) {
  const IsaFeatures zen5 = FixtureFeatures("zen5-ryzen-9950x");
  auto vnni256 = SelectPeakKernel(Precision::kInt8, zen5, "avx_vnni");
  ASSERT_TRUE(vnni256.ok());
  EXPECT_EQ((*vnni256)->instruction, "vpdpbusd ymm (VEX)");
  auto amx = SelectPeakKernel(Precision::kInt8, zen5, "amx_int8");
  ASSERT_FALSE(amx.ok());
  EXPECT_EQ(amx.error().message, "unsupported: CPU lacks amx_int8 (no int8 peak kernel runs here)");
  auto unknown = SelectPeakKernel(Precision::kInt8, zen5, "avx9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(unknown.error().message.find("known: amx_int8, avx512_vnni, avx_vnni, avx2"),
            std::string::npos)
      << unknown.error().message;
  // The AVX-512 kernel still runs on an AMX CPU when asked for.
  auto vnni =
      SelectPeakKernel(Precision::kInt8, FixtureFeatures("sapphire-rapids-8480"), "avx512_vnni");
  ASSERT_TRUE(vnni.ok());
  const IsaFeatures milan = FixtureFeatures("zen3-epyc-milan-vm");
  auto wide = SelectPeakKernel(Precision::kFp64, milan, "avx512f");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().message, "unsupported: CPU lacks avx512f (no fp64 peak kernel runs here)");
}

TEST(IsaDispatchTest, RequestedAmxPermissionMatchesTheHost) {
  // Granted on AMX CPUs under Linux 5.16+; elsewhere refused with the kernel's reason, and the
  // usable features then carry no AMX.
  const Status permission = RequestAmxPermission();
  if (!permission.ok()) {
    EXPECT_EQ(permission.error().code, ErrorCode::kUnsupported);
    EXPECT_FALSE(UsableHostFeatures().Has(IsaExtension::kAmxTile));
  } else {
    EXPECT_EQ(UsableHostFeatures().Has(IsaExtension::kAmxTile),
              HostFeatures().Has(IsaExtension::kAmxTile));
  }
}

TEST(IsaDispatchTest, HostCpuidAgreesWithItsCpuinfoFlags) {
  // The kernel clears cpuinfo flags for state it does not enable, as the XCR0 check does.
  auto info = ReadCpuInfo("/");
  if (!info.ok() || info->cpus.empty()) GTEST_SKIP() << "no /proc/cpuinfo";
  EXPECT_EQ(HostFeatures().ToString(), FeaturesFromFlags(info->cpus.front().flags).ToString());
}

}  // namespace
}  // namespace xpuperf::bench

#include "xpuperf/bench/isa.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace xpuperf::bench {
namespace {

constexpr std::array<std::string_view, 12> kNames = {
    "fma",         "avx2",     "avx512f",     "avx512bw", "avx512vl", "avx512_bf16",
    "avx512_vnni", "avx_vnni", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"};

bool Bit(uint64_t word, int bit) { return (word >> bit) & 1u; }

}  // namespace

std::string_view IsaExtensionName(IsaExtension extension) {
  return kNames[static_cast<size_t>(extension)];
}

std::string IsaFeatures::ToString() const {
  std::string text;
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (!Has(static_cast<IsaExtension>(i))) continue;
    if (!text.empty()) text += ' ';
    text += kNames[i];
  }
  return text;
}

IsaFeatures FeaturesFromCpuid(const CpuidWords& w) {
  IsaFeatures f;
  const bool avx_state =
      Bit(w.leaf1_ecx, 27) && Bit(w.leaf1_ecx, 28) && Bit(w.xcr0, 1) && Bit(w.xcr0, 2);
  const bool zmm_state = avx_state && Bit(w.xcr0, 5) && Bit(w.xcr0, 6) && Bit(w.xcr0, 7);
  const bool tile_state = Bit(w.xcr0, 17) && Bit(w.xcr0, 18);
  if (avx_state) {
    if (Bit(w.leaf1_ecx, 12)) f.Set(IsaExtension::kFma);
    if (Bit(w.leaf7_ebx, 5)) f.Set(IsaExtension::kAvx2);
    if (Bit(w.leaf7_1_eax, 4)) f.Set(IsaExtension::kAvxVnni);
  }
  if (zmm_state && Bit(w.leaf7_ebx, 16)) {
    f.Set(IsaExtension::kAvx512f);
    if (Bit(w.leaf7_ebx, 30)) f.Set(IsaExtension::kAvx512bw);
    if (Bit(w.leaf7_ebx, 31)) f.Set(IsaExtension::kAvx512vl);
    if (Bit(w.leaf7_1_eax, 5)) f.Set(IsaExtension::kAvx512Bf16);
    if (Bit(w.leaf7_ecx, 11)) f.Set(IsaExtension::kAvx512Vnni);
    if (Bit(w.leaf7_edx, 23)) f.Set(IsaExtension::kAvx512Fp16);
  }
  if (tile_state && Bit(w.leaf7_edx, 24)) {
    f.Set(IsaExtension::kAmxTile);
    if (Bit(w.leaf7_edx, 22)) f.Set(IsaExtension::kAmxBf16);
    if (Bit(w.leaf7_edx, 25)) f.Set(IsaExtension::kAmxInt8);
  }
  return f;
}

IsaFeatures FeaturesFromFlags(const std::vector<std::string>& flags) {
  IsaFeatures f;
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (std::find(flags.begin(), flags.end(), kNames[i]) != flags.end()) {
      f.Set(static_cast<IsaExtension>(i));
    }
  }
  return f;
}

CpuidWords ReadHostCpuid() {
  CpuidWords w;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) w.leaf1_ecx = ecx;
  if (__get_cpuid_max(0, nullptr) >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    w.leaf7_ebx = ebx;
    w.leaf7_ecx = ecx;
    w.leaf7_edx = edx;
    const unsigned subleaves = eax;
    if (subleaves >= 1) {
      __cpuid_count(7, 1, eax, ebx, ecx, edx);
      w.leaf7_1_eax = eax;
    }
  }
  // XGETBV faults unless the OS set CR4.OSXSAVE, which CPUID.1:ECX bit 27 mirrors.
  if ((w.leaf1_ecx >> 27) & 1u) {
    uint32_t low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    w.xcr0 = (uint64_t{high} << 32) | low;
  }
  return w;
}

IsaFeatures HostFeatures() { return FeaturesFromCpuid(ReadHostCpuid()); }

Status RequestAmxPermission() {
  // From <asm/prctl.h> (Linux 5.16+); spelled out so older headers build.
  constexpr int kArchReqXcompPerm = 0x1023;
  constexpr int kXfeatureXtileData = 18;
  static std::once_flag once;
  static long result = 0;
  static int error = 0;
  std::call_once(once, [] {
    result = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData);
    error = errno;
  });
  if (result == 0) return Status::Ok();
  return MakeError(ErrorCode::kUnsupported,
                   std::string("unsupported: the kernel refused AMX tile state "
                               "(arch_prctl ARCH_REQ_XCOMP_PERM: ") +
                       std::strerror(error) + ")");
}

IsaFeatures UsableHostFeatures() {
  IsaFeatures features = HostFeatures();
  if (features.Has(IsaExtension::kAmxTile) && !RequestAmxPermission().ok()) {
    for (const IsaExtension amx :
         {IsaExtension::kAmxTile, IsaExtension::kAmxBf16, IsaExtension::kAmxInt8}) {
      features.Clear(amx);
    }
  }
  return features;
}

}  // namespace xpuperf::bench

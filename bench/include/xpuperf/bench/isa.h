// The vector ISA extensions the peak kernels need, read from CPUID (with the OS's XCR0 state
// enabled for ymm, zmm and AMX tiles) or from /proc/cpuinfo flags (the kernel clears the flags of
// state it does not enable). Pure functions over recorded values, so dispatch is tested on
// fixtures of CPUs this machine is not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::bench {

// One bit per extension a kernel may need; names are the /proc/cpuinfo spellings.
enum class IsaExtension {
  kFma,         // "fma" (with avx2: 256-bit FMA)
  kAvx2,        // "avx2"
  kAvx512f,     // "avx512f"
  kAvx512bw,    // "avx512bw"
  kAvx512vl,    // "avx512vl"
  kAvx512Bf16,  // "avx512_bf16": vdpbf16ps
  kAvx512Vnni,  // "avx512_vnni": vpdpbusd zmm
  kAvxVnni,     // "avx_vnni": vpdpbusd ymm, VEX encoded
  kAvx512Fp16,  // "avx512_fp16": vfmadd231ph
  kAmxTile,     // "amx_tile"
  kAmxBf16,     // "amx_bf16": tdpbf16ps
  kAmxInt8,     // "amx_int8": tdpbusd
};

std::string_view IsaExtensionName(IsaExtension extension);

// The extensions present and usable (the OS saves their register state).
class IsaFeatures {
 public:
  bool Has(IsaExtension extension) const { return (bits_ >> static_cast<int>(extension)) & 1u; }
  void Set(IsaExtension extension) { bits_ |= 1u << static_cast<int>(extension); }
  void Clear(IsaExtension extension) { bits_ &= ~(1u << static_cast<int>(extension)); }
  // Space-separated cpuinfo names, in enum order ("fma avx2 avx512f ...").
  std::string ToString() const;

 private:
  uint32_t bits_ = 0;
};

// The CPUID words the extensions are read from, as recorded by `cpuid -r` or the instruction.
struct CpuidWords {
  uint32_t leaf1_ecx = 0;    // FMA bit 12, OSXSAVE bit 27, AVX bit 28
  uint32_t leaf7_ebx = 0;    // AVX2 bit 5, AVX512F 16, AVX512BW 30, AVX512VL 31
  uint32_t leaf7_ecx = 0;    // AVX512_VNNI bit 11
  uint32_t leaf7_edx = 0;    // AMX_BF16 bit 22, AVX512_FP16 23, AMX_TILE 24, AMX_INT8 25
  uint32_t leaf7_1_eax = 0;  // AVX_VNNI bit 4, AVX512_BF16 bit 5
  uint64_t xcr0 = 0;  // XGETBV(0): SSE 1, AVX 2, opmask 5, ZMM 6-7, XTILECFG 17, XTILEDATA 18
};

// The extensions CPUID reports whose register state XCR0 enables: AVX-class needs XCR0 bits 1-2
// (and OSXSAVE), AVX-512 also bits 5-7, AMX bits 17-18.
IsaFeatures FeaturesFromCpuid(const CpuidWords& words);
// The extensions named in a cpuinfo "flags" line.
IsaFeatures FeaturesFromFlags(const std::vector<std::string>& flags);
// CPUID and XGETBV of the CPU this runs on.
CpuidWords ReadHostCpuid();
IsaFeatures HostFeatures();

// Linux keeps AMX tile data off until a process asks (arch_prctl ARCH_REQ_XCOMP_PERM, feature
// 18); without it the first tile instruction faults. Ok once granted (idempotent, thread-safe);
// kUnsupported with the kernel's reason otherwise.
Status RequestAmxPermission();

// HostFeatures without the AMX extensions when Linux refuses the tile state: what this process
// can execute. Requests the permission on the first call.
IsaFeatures UsableHostFeatures();

}  // namespace xpuperf::bench

// The spec sheet of a CPU, computed from the machine instead of read from a datasheet: peak FLOP/s
// per precision by the same derivation the benchmarks report as their nominal peak, and memory
// bandwidth from the SMBIOS memory device table where it is readable.
#pragma once

#include <string>

#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::analysis {

// device: the CPU device (model, vendor, memory_bytes and topology.cores are used). root: where
// /proc/cpuinfo, cpufreq and /sys/firmware/dmi/tables/DMI are read ("/" on a live system).
// Peaks (fp64, fp32): all physical cores x 2 FMA pipes x SIMD lanes of the widest kernel the ISA
// flags allow x 2 FLOP/FMA x the peak frequency (bench::ComputeNominalPeak), each with its factors
// in peak_sources. Memory bandwidth: bytes_per_second 0 and memory_unknown_reason set when the
// SMBIOS table is absent or unreadable. No host or network link. kNotFound / kParse when
// root/proc/cpuinfo cannot be read or parsed.
Result<spec::SpecSheet> CpuSpecSheet(const Device& device, const std::string& root = "/");

}  // namespace xpuperf::analysis

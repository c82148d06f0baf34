// The spec sheet of a CPU, computed from the machine instead of read from a datasheet: peak FLOP/s
// per precision by the same derivation the benchmarks report as their nominal peak, and memory
// bandwidth from the SMBIOS memory device table where it is readable.
#pragma once

#include <string>

#include "xpuperf/bench/core_clock.h"
#include "xpuperf/bench/result_reader.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::analysis {

// device: the CPU device (model, vendor, memory_bytes and topology.cores are used). root: where
// /proc/cpuinfo, cpufreq and /sys/firmware/dmi/tables/DMI are read ("/" on a live system).
// Peaks per precision the hardware has vector instructions for (fp64, fp32; bf16 with AVX512_BF16
// or AMX, fp16 with AVX512_FP16, int8 with VNNI or AMX): all physical cores x the pipes and lanes
// of the widest kernel the cpuinfo flags allow, per microarchitecture x operations per lane x the
// peak frequency (bench::ComputeNominalPeak), each with its factors in peak_sources. The peak
// frequency is cpufreq's or /proc/cpuinfo's maximum, or `measured_clock` (a run's clock measured
// under its own load) where that is higher: a VM's cpuinfo states the nominal clock, not the turbo
// the cores really run at, while a lower measured clock (throttling) must not lower the spec.
// Memory bandwidth: bytes_per_second 0 and memory_unknown_reason set when the SMBIOS table is
// absent or unreadable. No host or network link. kNotFound / kParse when root/proc/cpuinfo cannot
// be read or parsed.
Result<spec::SpecSheet> CpuSpecSheet(const Device& device, const std::string& root = "/",
                                     const bench::ClockFigure& measured_clock = {});

// The clock a benchmark run measured under its own load: the median of the peak_fma records'
// parameters.clock.measured figures; hertz 0 when none has one.
bench::ClockFigure MeasuredRunClock(const bench::ResultDirectory& run);

}  // namespace xpuperf::analysis

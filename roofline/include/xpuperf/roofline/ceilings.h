// Ceilings of the hierarchical roofline: compute per precision, memory per level, the host link
// and the network, from measured benchmark results (and, labelled as such, from a spec sheet).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/roofline/bench_results.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::roofline {

enum class CeilingKind { kCompute, kMemory, kHostLink, kNetwork };
enum class CeilingSource { kMeasured, kSpec };

std::string_view CeilingKindName(CeilingKind kind);  // "compute", "memory", "host_link", "network"

struct Ceiling {
  CeilingKind kind = CeilingKind::kCompute;
  CeilingSource source = CeilingSource::kMeasured;
  // compute: the precision ("fp64"); memory: the level ("L1", "L2", "L3", "DRAM", "HBM");
  // host link: the direction ("h2d", "d2h"); network: the collective ("all_reduce").
  std::string scope;
  // compute: "peak" (peak_fma) or "gemm" (best GEMM); memory/host/network: what was measured.
  std::string variant;
  double value = 0;  // base units: FLOP/s for compute, bytes/s otherwise
  // Exactly as in results.jsonl (measured) or the sheet (spec, base units).
  double recorded_value = 0;
  std::string recorded_unit;
  std::string benchmark;  // "peak_fma", "stream", ...; "spec" for a sheet
  std::string metric;     // "fp64_flops", "triad_bandwidth", ...; the sheet field for a spec
  std::string basis;      // how it was measured: byte counting, threads, sizes
  // False when the record it came from is marked unstable (a stable record of the same figure is
  // always preferred); verdicts bound by it say "unstable" instead of judging.
  bool stable = true;
  std::string unstable_reason;

  // "fp64 peak", "fp32 GEMM", "L1", "DRAM (STREAM triad)", "host h2d", "all_reduce busbw";
  // spec ceilings end in " (spec)".
  std::string Label() const;
};

// Bits of a precision's format: fp64 64, fp32/int32 32, tf32 19, bf16/fp16 16, fp8/int8 8; 0 for
// a name the roofline does not know.
int PrecisionBits(std::string_view precision);

struct Ceilings {
  std::vector<Ceiling> all;  // measured first (compute, memory, host, network), then spec

  // The compute roof for `precision`: the higher of the measured peak and the measured GEMM (a
  // stable one before an unstable one), else spec; nullptr when none exists.
  const Ceiling* Compute(std::string_view precision) const;
  // The fastest compute roof of any precision (measured before spec), or nullptr.
  const Ceiling* FastestCompute() const;
  // The roof for a precision that has none of its own: the nearest precision at least as wide
  // (bf16 -> fp16, tf32, fp32, fp64), measured before spec; never a narrower one (a bf16 point is
  // not bound by an int8 roof). nullptr when no such ceiling exists.
  const Ceiling* NearestWiderCompute(std::string_view precision) const;
  // A memory level ("DRAM"), measured before spec, or nullptr.
  const Ceiling* Memory(std::string_view level) const;
  // The outermost memory level measured (DRAM/HBM), else the spec memory, or nullptr.
  const Ceiling* MainMemory() const;
  // Host link for a direction ("h2d"/"d2h"), or nullptr.
  const Ceiling* HostLink(std::string_view direction) const;
  // The network roof: all_reduce busbw when measured, else the highest busbw, else spec.
  const Ceiling* Network() const;
  // Memory levels in order from the innermost (L1) out to DRAM/HBM, measured only.
  std::vector<const Ceiling*> MeasuredMemoryLevels() const;
};

// Measured ceilings from a result directory:
//  - compute: peak_fma `<precision>_flops` (peak) and the best gemm `<precision>_flops` (GEMM);
//  - memory: cache_sweep `<level>_read_bandwidth` plateaus for cache levels, STREAM
//    `triad_bandwidth` (STREAM byte counting, no write-allocate) for DRAM/HBM; a device memory
//    copy (`host_transfer` d2d_bandwidth) when there is no STREAM result;
//  - host link: host_transfer h2d/d2h bandwidth at the largest size;
//  - network: collectives `<op>_busbw` at the largest size.
// Which record is which figure is bench/figures.h's (shared with `bench check`); the gpu_*
// benchmarks count like their CPU namesakes. Each ceiling's recorded_value is the record's value
// unchanged.
Ceilings CeilingsFromResults(const BenchResults& results);

// The datasheet's peaks, memory bandwidth and links as spec ceilings.
std::vector<Ceiling> CeilingsFromSpec(const spec::SpecSheet& sheet);

// "88.44 GFLOP/s", "25.76 GB/s", "1.2 TFLOP/s": 4 significant digits in 1e3 steps.
std::string FormatFlops(double flops_per_second);
// A ceiling's value in its own unit: int8 compute in OP/s (integer operations), other compute in
// FLOP/s, the rest in B/s.
std::string FormatCeilingValue(const Ceiling& ceiling);
std::string FormatBandwidth(double bytes_per_second);
std::string FormatSeconds(double seconds);  // "12.3 ms", "450 us"
std::string FormatBytes(double bytes);      // "1.50 GB" (1e9)

}  // namespace xpuperf::roofline

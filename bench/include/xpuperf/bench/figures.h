// Which record of a result directory is the run's compute, memory, host-link or network figure:
// the one place that says so, read by `bench check` (analysis/src/spec_check.cpp) and the roofline
// (roofline/src/ceilings.cpp). A gpu_* or pjrt_* benchmark counts like its CPU namesake (gpu_gemm
// and pjrt_gemm like gemm, pjrt_stream like stream, pjrt_collectives like collectives, ...). How
// the figures of one kind are reduced to one value (the best, the one at the largest size) stays
// with each reader.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/bench/result_reader.h"

namespace xpuperf::bench {

enum class FigureKind {
  kComputePeak,     // peak_fma "<precision>_flops" (or "_ops"); scope = precision
  kComputeGemm,     // gemm "<precision>_flops" (or "_ops"); scope = precision
  kCacheBandwidth,  // cache_sweep "<level>_read_bandwidth" plateau; scope = level ("L1", "DRAM")
  kL2Sweep,         // gpu_l2_sweep "read_bandwidth" of a working set within L2; scope = "L2"
  kMainMemory,      // stream "triad_bandwidth" (STREAM byte counting); scope = "triad"
  kDeviceCopy,      // host_transfer "d2d_bandwidth" (read + write counted); scope = "d2d"
  kHostLink,        // host_transfer "h2d_bandwidth" / "d2h_bandwidth"; scope = "h2d" / "d2h"
  kNetwork,         // collectives "<op>_busbw" (nccl-tests bus bandwidth); scope = op
};

struct Figure {
  FigureKind kind = FigureKind::kComputePeak;
  std::string scope;
  bool gpu = false;  // from an accelerator's benchmark (gpu_* or pjrt_*)
};

// The figure a record stands for, or nullopt for records that are none (latencies, write-allocate
// variants, sweeps' individual points, attention, ...). `parameters` are the record's parameters
// (gpu_l2_sweep needs working_set_bytes and l2_bytes).
std::optional<Figure> ClassifyRecord(std::string_view benchmark, std::string_view metric,
                                     const nlohmann::json& parameters);
std::optional<Figure> ClassifyRecord(const Measurement& measurement);

// The device whose figures a run gives: the id of the first record measured on an accelerator
// (device backend other than "cpu") when there is one — its gpu_* benchmarks —, else "" (the
// host: every record counts).
std::string FigureDeviceId(const std::vector<ResultRecord>& records);
// True when a record with this device id belongs to FigureDeviceId's device.
inline bool OnFigureDevice(std::string_view record_device_id, std::string_view figure_device_id) {
  return figure_device_id.empty() || record_device_id == figure_device_id;
}

}  // namespace xpuperf::bench

// Roofline points and bottleneck findings from a profiler trace, for `xpuperf roofline --trace` and
// `xpuperf diagnose --trace`: every GEMM the trace recorded with its input shapes (record_shapes)
// becomes a workload point with the trace's measured kernel time, and the device the trace ran on
// (deviceProperties) selects the spec sheet its points are judged against. Built with traces only
// (XPUPERF_WITH_TRACES: roofline/src/trace/).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/roofline/workload.h"
#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/findings.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::roofline {

// What a trace contributes to the roofline.
struct TracePoints {
  std::string path;
  int ranks = 0;
  // The GPU the trace's kernels ran on, from deviceProperties ("NVIDIA A100-SXM4-80GB"); empty
  // when the trace does not name one (CPU-only trace, no deviceProperties).
  std::string device;
  std::string device_note;  // why `device` is empty although devices are listed, else empty
  // The `top` GEMM points with the most kernel time, largest first, merged over ranks.
  std::vector<WorkloadPoint> points;
  size_t gemm_points = 0;  // GEMM points in the trace before the top-`top` cut
  size_t left_out = 0;     // gemm_points - points.size()
  int top = 0;
  std::vector<trace::Finding> findings;  // all ranks, as `xpuperf analyze` reports them
  size_t gemm_ops = 0;                   // GEMM CPU ops (aten::mm, addmm, ...) in all ranks
  size_t gemm_ops_with_shapes = 0;       // of them, with recorded Input Dims
  size_t kernels = 0;                    // GPU kernels in all ranks
  bool cpu_trace = false;                // no GPU kernel: the points are CPU ops timed by duration
};

// Why a trace gives no GEMM point: no GEMM op at all; GEMM ops without shapes (the
// record_shapes hint, only then); shapes but no GPU kernel joined by External id.
std::string NoGemmPointsReason(const TracePoints& points);

// The roofline precision of a trace's "Input type": c10::BFloat16 -> bf16, c10::Half -> fp16,
// float -> fp32 (tf32 when the kernel is an NVIDIA tensor-core kernel: float inputs on tensor
// cores are TF32; AMD matrix kernels stay fp32), double -> fp64, c10::Float8_* -> fp8, signed char
// / int8 -> int8. Anything else is fp32 (4 bytes per element, the size the trace analysis counts)
// and `note` says so.
std::string RooflineDtype(std::string_view input_type, std::string_view kernel, std::string* note);

// One workload point of a GEMM point: flops and bytes are the per-call counts times the calls,
// the time is the kernels' total. Named "aten::addmm 4096x4096x4096 bf16 (×1200 calls)" (M x N x
// K, "b8 " before the dims when batched).
WorkloadPoint GemmWorkloadPoint(const trace::GemmPoint& gemm);

// The name of the device the trace's kernels ran on (the deviceProperties entry of the device with
// the most kernels; the common name when all entries agree); empty when unknown, with `why`.
std::string TraceDeviceName(const trace::Trace& trace, std::string* why);

// Reads a trace file or a directory of per-rank traces (errors name the file and byte offset),
// analyses it as `xpuperf analyze` does and keeps the `top` GEMM points by time. Ranks that ran on
// differently named devices are an error (one roofline is one device).
Result<TracePoints> LoadTracePoints(const std::string& path, int top);

}  // namespace xpuperf::roofline

// Analyses of a trace, as Holistic Trace Analysis (HTA) computes them; each is a function of a
// Trace (one rank) or a TraceRun returning a plain struct. Times are integer nanoseconds, sizes
// bytes; docs/TRACES.md states every formula. All functions are pure and thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// HTA's kernel classes, by name: COMM ^nccl / ncclKernel / ^rccl / ^hccl; MEMORY ^Memcpy /
// ^Memset / ^dma (and every gpu_memcpy/gpu_memset event); COMPUTE the rest.
enum class KernelClass { kCompute, kComm, kMemory };
std::string_view KernelClassName(KernelClass k);
KernelClass ClassifyKernel(std::string_view name, EventKind kind);

// Summary statistics of durations (ns).
struct DurationStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
  double std_ns = 0;     // population standard deviation (as pandas' std with ddof=0)
  void Add(int64_t ns);  // call Finish() once after the last Add
  void Finish();

 private:
  double sum_sq_ = 0;
};

// --- temporal breakdown (per rank) ------------------------------------------------------------
// window = first GPU op start .. last GPU op end (kernels, memcpy, memset); busy = union of GPU op
// intervals; compute = union of COMPUTE kernels; non_compute = busy - compute; idle = window -
// busy.
struct TemporalBreakdown {
  int rank = 0;
  int64_t window_ns = 0;
  int64_t busy_ns = 0;
  int64_t compute_ns = 0;
  int64_t non_compute_ns = 0;
  int64_t idle_ns = 0;
  int64_t gpu_ops = 0;
};
TemporalBreakdown ComputeTemporalBreakdown(const Trace& trace);

// --- idle time (per stream) -------------------------------------------------------------------
// For each gap between consecutive GPU ops of a stream: host wait when the next op's launch call
// started after the previous op ended; else kernel wait when the gap < threshold; else other.
struct StreamIdle {
  int device = -1;
  int stream = -1;
  int64_t window_ns = 0;  // first op start .. last op end on this stream
  int64_t busy_ns = 0;
  int64_t idle_ns = 0;  // sum of gaps
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  int64_t gaps = 0;
};
struct IdleBreakdown {
  int rank = 0;
  int64_t kernel_wait_threshold_ns = 30'000;
  std::vector<StreamIdle> streams;  // by (device, stream)
};
IdleBreakdown ComputeIdleBreakdown(const Trace& trace, int64_t kernel_wait_threshold_ns = 30'000);

// --- kernel breakdown -------------------------------------------------------------------------
struct KernelStat {
  std::string name;
  KernelClass kernel_class = KernelClass::kCompute;
  DurationStats duration;
};
struct KernelBreakdown {
  int rank = 0;
  int64_t class_total_ns[3] = {0, 0, 0};  // sum of durations, by KernelClass
  int64_t class_count[3] = {0, 0, 0};
  int64_t total_ns = 0;
  std::vector<KernelStat> top;  // by total time, descending, at most top_k
  int64_t distinct_kernels = 0;
};
KernelBreakdown ComputeKernelBreakdown(const Trace& trace, size_t top_k = 10);

// --- communication / computation overlap ------------------------------------------------------
// overlap_ns = |union(compute) ∩ union(comm)|; ratio = overlap_ns / |union(comm)| (0 when no comm).
struct CommComputeOverlap {
  int rank = 0;
  int64_t comm_ns = 0;
  int64_t compute_ns = 0;
  int64_t overlap_ns = 0;
  double overlap_ratio = 0;
};
CommComputeOverlap ComputeCommComputeOverlap(const Trace& trace);

// --- kernel launches --------------------------------------------------------------------------
// Launch call (cuda_runtime/cuda_driver) and GPU op joined by args.correlation. launch delay =
// max(0, op.ts - (call.ts + call.dur)); a short kernel has gpu dur < call dur <= 50 us; outliers:
// call dur > 50 us, launch delay > 100 us.
struct LaunchCall {
  std::string name;
  DurationStats cpu_duration;
};
struct LaunchStats {
  int rank = 0;
  int64_t gpu_ops = 0;
  int64_t matched = 0;  // GPU ops whose launch call was found
  DurationStats delay;  // launch delay
  int64_t delay_p50_ns = 0;
  int64_t delay_p90_ns = 0;
  int64_t short_kernels = 0;
  int64_t long_launch_calls = 0;  // call dur > runtime_cutoff
  int64_t delayed_launches = 0;   // delay > delay_cutoff
  // Kernel launch calls on the host (cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel,
  // cudaGraphLaunch, ...), matched to a GPU op or not: launches with no GPU op at all mean the
  // device side was not recorded, not a CPU-only run.
  int64_t host_launch_calls = 0;
  int64_t runtime_cutoff_ns = 50'000;
  int64_t delay_cutoff_ns = 100'000;
  std::vector<LaunchCall> calls;  // by total CPU time, descending
};
LaunchStats ComputeLaunchStats(const Trace& trace);

// --- queue length (per stream) ----------------------------------------------------------------
// +1 at each launch call's start, -1 at its GPU op's end (ends first at equal times).
struct StreamQueue {
  int device = -1;
  int stream = -1;
  int64_t max_length = 0;
  double mean_length = 0;  // time-weighted over first launch .. last end
  int64_t time_at_or_above_limit_ns = 0;
  int64_t span_ns = 0;
};
struct QueueLength {
  int rank = 0;
  int64_t limit = 1024;
  std::vector<StreamQueue> streams;
};
QueueLength ComputeQueueLength(const Trace& trace, int64_t limit = 1024);

// --- memcpy / memset bandwidth ----------------------------------------------------------------
struct CopyKindStats {
  std::string kind;  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "Memset", "other"
  int64_t count = 0;
  int64_t bytes = 0;
  int64_t busy_ns = 0;              // sum of durations
  double gbps = 0;                  // bytes / busy time, GB/s (1e9 bytes/s)
  double peak_concurrent_gbps = 0;  // max of the running sum of per-op GB/s
  int64_t pageable = 0;             // host side pageable (name says "Pageable")
};
struct MemcpyBandwidth {
  int rank = 0;
  std::vector<CopyKindStats> kinds;
};
MemcpyBandwidth ComputeMemcpyBandwidth(const Trace& trace);

// --- CPU operators ----------------------------------------------------------------------------
// inclusive = own duration; exclusive = inclusive - durations of directly nested cpu_ops on the
// same thread.
struct OperatorStat {
  std::string name;
  int64_t count = 0;
  int64_t inclusive_ns = 0;
  int64_t exclusive_ns = 0;
};
struct OperatorBreakdown {
  int rank = 0;
  std::vector<OperatorStat> by_name;    // by exclusive time, descending, at most top_k
  std::vector<OperatorStat> by_module;  // from args."Module Hierarchy" when present
  int64_t total_ops = 0;
};
OperatorBreakdown ComputeOperatorBreakdown(const Trace& trace, size_t top_k = 20);

// --- iterations -------------------------------------------------------------------------------
// Each ProfilerStep#N user annotation; GPU ops whose start lies inside the step count for it.
struct IterationStat {
  int64_t step = 0;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t gpu_busy_ns = 0;  // union of GPU ops in the step
  int64_t compute_ns = 0;
  int64_t comm_ns = 0;
  int64_t memory_ns = 0;
  int64_t kernels = 0;
  int64_t dataloader_ns = 0;  // CPU time in ops named *DataLoader* inside the step
};
struct IterationBreakdown {
  int rank = 0;
  std::vector<IterationStat> steps;
};
IterationBreakdown ComputeIterationBreakdown(const Trace& trace);

// --- [memory] events --------------------------------------------------------------------------
struct AllocationSite {
  std::string op;  // innermost CPU op enclosing the allocation on its thread, or "(none)"
  int64_t allocations = 0;
  int64_t bytes = 0;
};
struct DeviceMemory {
  int device_type = -1;
  int device_id = -1;
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;
  int64_t peak_ts_ns = 0;
  int64_t allocations = 0;
  int64_t frees = 0;
  int64_t total_memory = 0;  // deviceProperties totalGlobalMem (0 = unknown)
};
struct MemoryEventsSummary {
  int rank = 0;
  int64_t events = 0;
  std::vector<DeviceMemory> devices;
  std::vector<AllocationSite> top_sites;  // by bytes allocated, descending
};
MemoryEventsSummary ComputeMemoryEvents(const Trace& trace, size_t top_k = 10);

// --- stragglers -------------------------------------------------------------------------------
// The k-th occurrence of a COMM kernel name on every rank is one collective; the rank starting it
// last is its straggler; lateness = its start - the earliest start.
struct RankStraggle {
  int rank = 0;
  int64_t collectives = 0;
  int64_t last_count = 0;  // collectives this rank started last
  double mean_lateness_ns = 0;
  int64_t comm_ns = 0;
};
struct Stragglers {
  int64_t collectives = 0;  // matched on every rank
  std::vector<RankStraggle> ranks;
};
Stragglers ComputeStragglers(const TraceRun& run);

// --- GEMM roofline points ---------------------------------------------------------------------
// GEMM CPU ops (aten::mm/addmm/bmm/baddbmm/matmul/linear) with recorded Input Dims, joined to the
// kernels they launched by "External id", one point per (op, dtype, M, N, K, batch): per call
// flops = 2*M*N*K*batch and bytes = (M*K + K*N + M*N)*batch * element size (from Input type; 4
// when unknown); time = the kernels' durations summed over all `calls`. Achieved FLOP/s =
// flops * calls / time. Sorted by time, largest first. A trace with no GPU kernel at all (a CPU
// run) gives CPU points instead: the outermost GEMM op on each thread (aten::linear, not the
// aten::addmm inside it), timed by the op's own duration (on_cpu).
struct GemmPoint {
  std::string op;
  std::string kernel;  // the first call's first kernel
  int64_t m = 0, n = 0, k = 0, batch = 1;
  double flops = 0;  // per call
  double bytes = 0;  // per call
  int64_t calls = 0;
  int64_t time_ns = 0;  // all calls
  std::string dtype;
  bool on_cpu = false;  // a CPU trace's point: time is the ops' own durations, kernel is empty

  double FlopsPerSecond() const {
    return time_ns > 0 ? flops * static_cast<double>(calls) / (static_cast<double>(time_ns) * 1e-9)
                       : 0;
  }
};
std::vector<GemmPoint> ComputeGemmPoints(const Trace& trace);

// The CPU ops a GEMM point can come from ("aten::mm", "aten::addmm", ...).
bool IsGemmOpName(std::string_view name);

// --- helpers shared by the analyses -----------------------------------------------------------
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
};
// Sorts and merges in place; returns the covered length.
int64_t MergeIntervals(std::vector<Interval>& intervals);
int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace xpuperf::trace

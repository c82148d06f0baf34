// The rule table and the evidence it reads.
#include "xpuperf/trace/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "analysis_util.h"

namespace xpuperf::trace {
namespace {

bool IsSyncCall(std::string_view name) {
  static constexpr std::string_view kCalls[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize",
                                                "cudaEventSynchronize",  "hipDeviceSynchronize",
                                                "hipStreamSynchronize",  "hipEventSynchronize"};
  for (auto c : kCalls) {
    if (name == c) return true;
  }
  return false;
}

bool IsTensorCoreEligible(std::string_view op) {
  return internal::IsGemmOpName(op) ||
         (op.rfind("aten::", 0) == 0 && op.find("conv") != std::string_view::npos);
}

std::string Ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }
std::string Pct(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }
double Share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

Finding Make(const RankEvidence& ev, std::string rule, Severity severity, double value,
             double threshold) {
  Finding f;
  f.rule = std::move(rule);
  f.severity = severity;
  f.rank = ev.rank;
  f.value = value;
  f.threshold = threshold;
  return f;
}

// DataLoader > 5% of step time (XProf: 5-20% moderately, >= 20% highly input bound).
Finding InputBound(const RankEvidence& ev, bool* fired) {
  int64_t steps_ns = 0;
  int64_t loader_ns = 0;
  for (const auto& s : ev.iterations.steps) {
    steps_ns += s.duration_ns;
    loader_ns += s.dataloader_ns;
  }
  if (ev.iterations.steps.empty()) {
    steps_ns = ev.cpu_window_ns;
    loader_ns = ev.dataloader_ns;
  }
  double share = Share(loader_ns, steps_ns);
  *fired = share > 0.05;
  Finding f = Make(ev, "input_bound", share >= 0.20 ? Severity::kCritical : Severity::kWarning,
                   share, 0.05);
  f.title = "Input bound: the data loader takes " + Pct(share) + " of the step time";
  f.evidence = fmt::format("DataLoader ranges {} of {} ({} steps)", Ms(loader_ns), Ms(steps_ns),
                           ev.iterations.steps.size());
  f.advice =
      "Load data in parallel (DataLoader num_workers > 0, pin_memory=True, persistent_workers), "
      "prefetch the next batch, or move decoding/augmentation off the training loop.";
  return f;
}

// Host-side launch overhead leaves the GPU waiting: host-wait idle of the main stream (the one
// with the most GPU ops) >= 15% of the GPU window. Side streams (NCCL, copies) idle by design, so
// they don't count.
Finding LaunchBound(const RankEvidence& ev, bool* fired) {
  int64_t host_wait = 0, most = -1;
  for (const auto& s : ev.idle.streams) {
    if (s.gaps > most) {
      most = s.gaps;
      host_wait = s.host_wait_ns;
    }
  }
  double share = Share(host_wait, ev.temporal.window_ns);
  *fired = share >= 0.15;
  Finding f = Make(ev, "launch_bound", share >= 0.40 ? Severity::kCritical : Severity::kWarning,
                   share, 0.15);
  f.title = "Launch bound: the GPU waits for the CPU to launch work " + Pct(share) + " of the time";
  std::string calls;
  for (size_t i = 0; i < ev.launches.calls.size() && i < 3; ++i) {
    const auto& c = ev.launches.calls[i];
    calls += fmt::format("{}{} x{} ({} total)", i ? ", " : "", c.name, c.cpu_duration.count,
                         Ms(c.cpu_duration.total_ns));
  }
  f.evidence = fmt::format(
      "host-wait idle on the main stream {} of a {} GPU window; {} of {} kernels shorter than "
      "their launch call; "
      "median launch delay {:.1f} us; top launch calls: {}",
      Ms(host_wait), Ms(ev.temporal.window_ns), ev.launches.short_kernels, ev.launches.matched,
      static_cast<double>(ev.launches.delay_p50_ns) / 1e3, calls.empty() ? "none" : calls);
  f.advice =
      "Launch fewer, larger kernels: CUDA graphs (torch.cuda.graphs / torch.compile "
      "mode=\"reduce-overhead\"), kernel fusion (torch.compile), larger batches; remove host "
      "work and synchronisation from the training loop.";
  return f;
}

// Communication not hidden behind compute > 10% of the GPU window (TensorBoard plugin: 10%).
Finding CommBound(const RankEvidence& ev, bool* fired) {
  int64_t exposed = ev.overlap.comm_ns - ev.overlap.overlap_ns;
  double share = Share(exposed, ev.temporal.window_ns);
  *fired = share > 0.10;
  Finding f =
      Make(ev, "comm_bound", share >= 0.30 ? Severity::kCritical : Severity::kWarning, share, 0.10);
  f.title = "Communication bound: collectives not overlapped with compute take " + Pct(share) +
            " of the GPU time";
  std::string top;
  for (const auto& k : ev.kernels.top) {
    if (k.kernel_class != KernelClass::kComm) continue;
    top += fmt::format("{}{} x{} ({})", top.empty() ? "" : ", ", k.name, k.duration.count,
                       Ms(k.duration.total_ns));
  }
  f.evidence = fmt::format("communication {} of which {} overlapped ({}); top: {}",
                           Ms(ev.overlap.comm_ns), Ms(ev.overlap.overlap_ns),
                           Pct(ev.overlap.overlap_ratio), top.empty() ? "none" : top);
  f.advice =
      "Overlap communication with compute (DDP bucket_cap_mb, FSDP prefetching), reduce what is "
      "sent (gradient compression, bf16 all-reduce), or check the interconnect with `xpuperf "
      "bench network`.";
  return f;
}

// GPU busy < 50% of its window (TensorBoard plugin).
Finding LowUtilisation(const RankEvidence& ev, bool* fired) {
  double busy = Share(ev.temporal.busy_ns, ev.temporal.window_ns);
  *fired = ev.temporal.gpu_ops > 0 && ev.temporal.window_ns > 0 && busy < 0.50;
  Finding f = Make(ev, "low_utilisation", busy < 0.20 ? Severity::kCritical : Severity::kWarning,
                   busy, 0.50);
  f.title = "Low GPU utilisation: busy " + Pct(busy) + " of the time";
  f.evidence =
      fmt::format("busy {} in a {} window; idle {} (host wait {} on the busiest stream)",
                  Ms(ev.temporal.busy_ns), Ms(ev.temporal.window_ns), Ms(ev.temporal.idle_ns),
                  Ms(ev.idle.streams.empty() ? 0 : ev.idle.streams.front().host_wait_ns));
  f.advice =
      "Find what the GPU waits for in the idle breakdown: host (launch bound, input bound), "
      "synchronisation, or communication; raise the batch size if memory allows.";
  return f;
}

// Compute capability >= 7, no tensor-core kernel time, eligible ops present (TensorBoard plugin).
Finding NoTensorCores(const RankEvidence& ev, bool* fired) {
  // Without kernels in the trace (CPU-only capture) nothing is known about tensor-core use.
  *fired = ev.compute_major >= 7 && ev.kernels.class_count[0] > 0 &&
           ev.tensor_core_kernel_ns == 0 && ev.gemm_eligible_ops > 0;
  Finding f =
      Make(ev, "no_tensor_cores", Severity::kWarning, static_cast<double>(ev.gemm_eligible_ops), 0);
  f.title = "Tensor cores unused although " + std::to_string(ev.gemm_eligible_ops) +
            " matrix/convolution ops could use them";
  std::string ops;
  for (size_t i = 0; i < ev.fp32_gemm_ops.size() && i < 5; ++i) {
    ops += (i ? ", " : "") + ev.fp32_gemm_ops[i];
  }
  f.evidence = fmt::format("compute capability {}.x; 0 ns in tensor-core kernels; float32 ops: {}",
                           ev.compute_major, ops.empty() ? "n/a" : ops);
  f.advice =
      "Use mixed precision (torch.autocast with bf16/fp16) or allow TF32 "
      "(torch.backends.cuda.matmul.allow_tf32 = True, "
      "torch.set_float32_matmul_precision(\"high\")).";
  return f;
}

// Any copy from/to pageable host memory (Nsight Systems).
Finding PageableMemcpy(const RankEvidence& ev, bool* fired) {
  *fired = ev.pageable_copies > 0;
  Finding f =
      Make(ev, "pageable_memcpy", Severity::kWarning, static_cast<double>(ev.pageable_copies), 0);
  f.title = std::to_string(ev.pageable_copies) + " copies use pageable host memory";
  f.evidence = fmt::format("{} pageable memcpy events, {} of GPU time", ev.pageable_copies,
                           Ms(ev.pageable_copy_ns));
  f.advice =
      "Pin host buffers (DataLoader pin_memory=True, tensor.pin_memory()) and copy with "
      "non_blocking=True so the copies run asynchronously and at full bandwidth.";
  return f;
}

// Synchronisation calls take >= 5% of the CPU time (Nsight Systems: frequent synchronisation).
Finding FrequentSync(const RankEvidence& ev, bool* fired) {
  double share = Share(ev.sync_ns, ev.cpu_window_ns);
  *fired = ev.sync_calls >= 2 && share >= 0.05;
  Finding f = Make(ev, "frequent_sync", share >= 0.20 ? Severity::kCritical : Severity::kWarning,
                   share, 0.05);
  f.title = fmt::format("Frequent synchronisation: {} calls block the CPU {} of the time",
                        ev.sync_calls, Pct(share));
  f.evidence = fmt::format("{} cuda*/hip*Synchronize calls, {} in total, over {}", ev.sync_calls,
                           Ms(ev.sync_ns), Ms(ev.cpu_window_ns));
  f.advice =
      "Remove implicit syncs (.item(), .cpu(), printing tensors, torch.cuda.synchronize()) from "
      "the loop; accumulate metrics on the device and read them once per N steps.";
  return f;
}

// Peak reserved memory > 90% of the device's memory (TensorBoard plugin).
Finding NearOom(const RankEvidence& ev, bool* fired) {
  double worst = 0;
  const DeviceMemory* device = nullptr;
  for (const auto& d : ev.memory.devices) {
    if (d.total_memory <= 0) continue;
    double share = Share(std::max(d.peak_reserved, d.peak_allocated), d.total_memory);
    if (share > worst) {
      worst = share;
      device = &d;
    }
  }
  *fired = worst > 0.90;
  Finding f =
      Make(ev, "near_oom", worst > 0.97 ? Severity::kCritical : Severity::kWarning, worst, 0.90);
  f.title = "Near out of memory: peak " + Pct(worst) + " of device memory";
  if (device) {
    std::string sites;
    for (size_t i = 0; i < ev.memory.top_sites.size() && i < 3; ++i) {
      const auto& s = ev.memory.top_sites[i];
      sites += fmt::format("{}{} ({:.2f} GiB)", i ? ", " : "", s.op,
                           static_cast<double>(s.bytes) / (1024.0 * 1024 * 1024));
    }
    f.evidence = fmt::format(
        "device {}: peak allocated {:.2f} GiB, reserved {:.2f} GiB of {:.2f} GiB; top "
        "allocation sites: {}",
        device->device_id, static_cast<double>(device->peak_allocated) / (1 << 30),
        static_cast<double>(device->peak_reserved) / (1 << 30),
        static_cast<double>(device->total_memory) / (1 << 30), sites.empty() ? "n/a" : sites);
  }
  f.advice =
      "Lower the batch size or use activation checkpointing, mixed precision, or sharded "
      "optimizer state (FSDP/ZeRO); set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against "
      "fragmentation.";
  return f;
}

// The critical path runs mostly through host work: the GPU waits for the CPU (HTA's critical path).
Finding HostBoundPath(const RankEvidence& ev, bool* fired) {
  const CriticalPath& path = ev.critical_path;
  const double share = Share(path.host_ns, path.length_ns);
  *fired = path.gpu_ops > 0 && share > 0.5;
  Finding f = Make(ev, "host_bound_path", share > 0.8 ? Severity::kCritical : Severity::kWarning,
                   share, 0.5);
  f.title = "The critical path runs through host work " + Pct(share) + " of the time";
  auto part = [&](PathCategory c) {
    return fmt::format("{} {}", PathCategoryName(c),
                       Pct(Share(path.category_ns[static_cast<int>(c)], path.length_ns)));
  };
  std::string host_items;
  int listed = 0;
  for (const auto& item : path.top) {
    if (!IsHostCategory(item.category) || listed == 3) continue;
    host_items += fmt::format("{}{} ({})", listed++ ? ", " : "", item.name, Ms(item.ns));
  }
  f.evidence = fmt::format(
      "critical path {} with {} GPU ops: {}, {}, {}, {}, {}; longest host "
      "items: {}",
      Ms(path.length_ns), path.gpu_ops, part(PathCategory::kCpuOp), part(PathCategory::kCpuRuntime),
      part(PathCategory::kCpuUntraced), part(PathCategory::kKernelLaunch),
      part(PathCategory::kSyncWakeup), host_items.empty() ? "n/a" : host_items);
  f.advice =
      "The GPU waits for the host. Capture the step in CUDA Graphs (torch.compile "
      "mode=\"reduce-overhead\", torch.cuda.graphs) to cut launch cost, fuse small kernels, "
      "remove synchronisations from the step, and move data preparation off the launching "
      "thread (DataLoader workers, pinned non_blocking copies).";
  return f;
}

}  // namespace

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "info";
}

bool IsTensorCoreKernel(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::string_view kMarks[] = {"hmma", "imma",    "gmma",    "wgmma",
                                                "_884", "1688",    "16816",   "tensorop",
                                                "xmma", "mi16x16", "mi32x32", "_mma"};
  for (auto m : kMarks) {
    if (lower.find(m) != std::string::npos) return true;
  }
  return false;
}

const std::vector<Rule>& Rules() {
  static const std::vector<Rule> kRules = {
      {"input_bound", "DataLoader time > 5% of step time (>= 20% critical)", InputBound},
      {"launch_bound", "main stream host-wait idle >= 15% of the GPU window (>= 40% critical)",
       LaunchBound},
      {"comm_bound", "communication not overlapped with compute > 10% of the GPU window",
       CommBound},
      {"low_utilisation", "GPU busy < 50% of the GPU window (< 20% critical)", LowUtilisation},
      {"no_tensor_cores",
       "compute capability >= 7, no tensor-core kernel time, matrix/conv ops present",
       NoTensorCores},
      {"pageable_memcpy", "any memcpy from or to pageable host memory", PageableMemcpy},
      {"frequent_sync", ">= 2 synchronize calls taking >= 5% of the CPU window", FrequentSync},
      {"near_oom", "peak reserved (or allocated) memory > 90% of device memory", NearOom},
      {"host_bound_path", "host work > 50% of the critical path, GPU ops on it (> 80% critical)",
       HostBoundPath},
  };
  return kRules;
}

std::vector<Finding> EvaluateRules(const RankEvidence& evidence) {
  std::vector<Finding> findings;
  for (const Rule& rule : Rules()) {
    bool fired = false;
    Finding f = rule.check(evidence, &fired);
    if (fired) findings.push_back(std::move(f));
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  return findings;
}

RankEvidence SummariseRank(const Trace& trace, size_t top_k, std::string_view critical_path_range,
                           const std::set<std::string>& analyses) {
  const bool all = analyses.empty() || analyses.count("findings") > 0;
  auto need = [&](const char* name) { return all || analyses.count(name) > 0; };
  RankEvidence ev;
  ev.rank = trace.rank;
  if (need("temporal")) ev.temporal = ComputeTemporalBreakdown(trace);
  if (need("idle")) {
    ev.idle = ComputeIdleBreakdown(trace);
    std::sort(ev.idle.streams.begin(), ev.idle.streams.end(),
              [](const auto& a, const auto& b) { return a.busy_ns > b.busy_ns; });
  }
  if (need("kernels")) ev.kernels = ComputeKernelBreakdown(trace, top_k);
  if (need("overlap")) ev.overlap = ComputeCommComputeOverlap(trace);
  if (need("launch")) ev.launches = ComputeLaunchStats(trace);
  if (need("memcpy")) ev.memcpy = ComputeMemcpyBandwidth(trace);
  if (need("iterations")) ev.iterations = ComputeIterationBreakdown(trace);
  if (need("memory")) ev.memory = ComputeMemoryEvents(trace, top_k);
  if (need("operators")) ev.operators = ComputeOperatorBreakdown(trace, top_k);
  if (need("critical_path")) {
    ev.critical_path = ComputeCriticalPath(trace, top_k, critical_path_range);
  }
  if (!all) return ev;  // the rest is what only the rules read
  int64_t first = INT64_MAX, last = INT64_MIN;
  std::vector<Interval> loader;
  // What each distinct name is, computed once: names repeat millions of times in large traces.
  enum : uint8_t {
    kKnown = 1,
    kSync = 2,
    kPageable = 4,
    kTensorCore = 8,
    kEligible = 16,
    kLoader = 32
  };
  std::vector<uint8_t> flags(trace.strings.size(), 0);
  auto flags_of = [&](uint32_t id) {
    uint8_t& f = flags[id];
    if (!f) {
      std::string_view name = trace.strings.Get(id);
      f = kKnown | (IsSyncCall(name) ? kSync : 0) |
          (name.find("Pageable") != std::string_view::npos ? kPageable : 0) |
          (IsTensorCoreKernel(name) ? kTensorCore : 0) |
          (IsTensorCoreEligible(name) ? kEligible : 0) |
          (name.find("DataLoader") != std::string_view::npos ? kLoader : 0);
    }
    return f;
  };
  for (const TraceEvent& e : trace.events) {
    first = std::min(first, e.ts_ns);
    last = std::max(last, e.end_ns());
    switch (e.kind) {
      case EventKind::kRuntime:
      case EventKind::kDriver:
        if (flags_of(e.name) & kSync) {
          ++ev.sync_calls;
          ev.sync_ns += e.dur_ns;
        }
        break;
      case EventKind::kMemcpy:
        if (flags_of(e.name) & kPageable) {
          ++ev.pageable_copies;
          ev.pageable_copy_ns += e.dur_ns;
        }
        break;
      case EventKind::kKernel:
        if (flags_of(e.name) & kTensorCore) ev.tensor_core_kernel_ns += e.dur_ns;
        break;
      case EventKind::kCpuOp:
        if (flags_of(e.name) & kEligible) {
          std::string_view name = trace.Name(e);
          ++ev.gemm_eligible_ops;
          std::string_view type = trace.strings.Get(e.input_type);
          if (type == "float" && ev.fp32_gemm_ops.size() < 5 &&
              std::find(ev.fp32_gemm_ops.begin(), ev.fp32_gemm_ops.end(), name) ==
                  ev.fp32_gemm_ops.end()) {
            ev.fp32_gemm_ops.emplace_back(name);
          }
        }
        [[fallthrough]];
      case EventKind::kUserAnnotation:
        if (flags_of(e.name) & kLoader) loader.push_back({e.ts_ns, e.end_ns()});
        break;
      default:
        break;
    }
  }
  ev.cpu_window_ns = trace.events.empty() ? 0 : last - first;
  ev.dataloader_ns = MergeIntervals(loader);
  for (const auto& d : trace.devices) {
    if (d.compute_major >= 0) {
      ev.compute_major = d.compute_major;
      break;
    }
  }
  return ev;
}

}  // namespace xpuperf::trace

#include "xpuperf/roofline/advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace xpuperf::roofline {
namespace {

const PointVerdict& VerdictAt(const AdviceContext& c, size_t i) { return c.analysis->verdicts[i]; }

bool IsMemoryBoundElementwise(const PointVerdict& v) {
  return v.point.op == "elementwise" && v.bound == Bound::kMemory;
}

// Measured time where known, else the roof time.
double TimeOf(const PointVerdict& v) {
  return v.point.time_seconds ? *v.point.time_seconds : v.roof_seconds;
}

const BoundTerm* TermOf(const PointVerdict& v, Bound bound) {
  const BoundTerm* found = nullptr;
  for (const BoundTerm& term : v.terms) {
    if (term.bound == bound && (found == nullptr || term.seconds > found->seconds)) found = &term;
  }
  return found;
}

std::string Percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

// Reported once, at the first point of a run of >= 2 consecutive memory-bound elementwise ops.
// Only points that really ran back to back (follows_previous) form a chain: two entries of a
// workload file are otherwise unrelated.
std::optional<Finding> FuseElementwise(const AdviceContext& c, size_t i) {
  const auto& verdicts = c.analysis->verdicts;
  const auto chained = [&](size_t j) {
    return IsMemoryBoundElementwise(verdicts[j]) && verdicts[j].point.follows_previous;
  };
  if (!IsMemoryBoundElementwise(verdicts[i])) return std::nullopt;
  if (i > 0 && IsMemoryBoundElementwise(verdicts[i - 1]) && verdicts[i].point.follows_previous) {
    return std::nullopt;
  }
  size_t end = i;
  while (end + 1 < verdicts.size() && chained(end + 1)) ++end;
  if (end == i) return std::nullopt;
  double total = 0, largest_roof = 0;
  for (size_t j = i; j <= end; ++j) {
    total += TimeOf(verdicts[j]);
    largest_roof = std::max(largest_roof, verdicts[j].roof_seconds);
  }
  Finding finding;
  finding.reason = fmt::format(
      "{} elementwise ops in a row ({} .. {}) are memory-bound: each writes its result to memory "
      "for the next to read back",
      end - i + 1, verdicts[i].point.name, verdicts[end].point.name);
  finding.gain_seconds = std::max(0.0, total - largest_roof);
  if (*finding.gain_seconds <= 0) return std::nullopt;  // nothing to gain: no advice
  finding.expected_gain = fmt::format(
      "up to {} of {}: a fused kernel moves about as much as the largest op of the chain",
      FormatSeconds(*finding.gain_seconds), FormatSeconds(total));
  return finding;
}

std::optional<Finding> GemmLowIntensity(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  if (v.point.op != "gemm" || v.bound != Bound::kMemory || !v.intensity || !v.peak_flops) {
    return std::nullopt;
  }
  const BoundTerm* memory = TermOf(v, Bound::kMemory);
  const double ridge = *v.peak_flops / memory->ceiling_value;
  Finding finding;
  finding.reason = fmt::format(
      "intensity {:.3g} FLOP/B is below the ridge {:.3g} FLOP/B ({} / {}): the GEMM waits on "
      "{} traffic",
      *v.intensity, ridge, FormatFlops(*v.peak_flops), FormatBandwidth(memory->ceiling_value),
      memory->scope);
  const double compute_time = v.point.flops / *v.peak_flops;
  finding.gain_seconds = std::max(0.0, TimeOf(v) - compute_time);
  finding.expected_gain = fmt::format(
      "up to {} per call when the intensity reaches the ridge (time {} at the compute roof)",
      FormatSeconds(*finding.gain_seconds), FormatSeconds(compute_time));
  return finding;
}

std::optional<Finding> ComputeBelowPeak(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  // With traffic that had no ceiling the real bound may be that traffic, not the kernel.
  if (v.bound != Bound::kCompute || !v.fraction_of_roof || *v.fraction_of_roof >= kFarBelowRoof ||
      v.ignored_traffic) {
    return std::nullopt;
  }
  Finding finding;
  finding.reason =
      fmt::format("compute-bound but at {} of the {} roof ({} achieved of {})",
                  Percent(*v.fraction_of_roof), TermOf(v, Bound::kCompute)->ceiling,
                  FormatFlops(v.achieved_flops.value_or(0)), FormatFlops(v.peak_flops.value_or(0)));
  finding.gain_seconds = v.headroom_seconds;
  finding.expected_gain = fmt::format("up to {} ({:.1f}x faster) at the roof",
                                      FormatSeconds(*v.headroom_seconds), 1 / *v.fraction_of_roof);
  return finding;
}

}  // namespace

std::vector<std::string> LowerPrecisionCandidates(std::string_view dtype) {
  if (dtype == "fp64") return {"fp32"};
  if (dtype == "fp32") return {"tf32", "bf16", "fp16"};
  if (dtype == "tf32") return {"bf16", "fp16"};
  if (dtype == "bf16" || dtype == "fp16") return {"fp8", "int8"};
  return {};
}

std::string PrecisionChangeCaveat(std::string_view from, std::string_view to) {
  if (from == "fp64") {
    return fmt::format(
        "this changes the numerical result: {} keeps about 7 significant digits "
        "where fp64 keeps about 16; only where the algorithm tolerates it (e.g. "
        "mixed-precision iterative refinement, with the residual in fp64)",
        to);
  }
  if (to == "int8" || to == "fp8") {
    return fmt::format(
        "this changes the numerical result: {} is quantisation; calibrate the "
        "scales and check the model's accuracy before and after",
        to);
  }
  return fmt::format(
      "this changes the numerical result ({} has fewer mantissa bits than {}); "
      "keep accumulations in fp32 and check accuracy",
      to, from);
}

namespace {

// The one rule that suggests another precision: only formats a step lower that keep the kind of
// number (fp64 -> fp32 only; never int8 to an fp64 workload), each judged by the roof the point's
// own would be (measured before spec: the same choice as the verdict's), and the advice always
// says that the numerical result changes.
std::optional<Finding> LowerPrecision(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  if (v.bound != Bound::kCompute || !v.peak_flops) return std::nullopt;
  const Ceiling* own = c.ceilings->Compute(v.point.dtype);
  const Ceiling* faster = nullptr;
  for (const std::string& candidate : LowerPrecisionCandidates(v.point.dtype)) {
    const Ceiling* roof = c.ceilings->Compute(candidate);
    if (roof == nullptr || roof->value < kPrecisionSpeedup * *v.peak_flops) continue;
    // A spec roof is compared only with a spec roof: a datasheet's peak against a measured one
    // is not a speed-up anyone can reach.
    if (own != nullptr && own->source != roof->source) continue;
    if (faster == nullptr || roof->value > faster->value) faster = roof;
  }
  if (faster == nullptr) return std::nullopt;
  Finding finding;
  finding.reason = fmt::format("compute-bound in {} ({}); {} reaches {} ({:.1f}x); {}",
                               v.point.dtype, FormatFlops(*v.peak_flops), faster->Label(),
                               FormatFlops(faster->value), faster->value / *v.peak_flops,
                               PrecisionChangeCaveat(v.point.dtype, faster->scope));
  const double now = v.point.flops / *v.peak_flops;
  const double then = v.point.flops / faster->value;
  finding.gain_seconds = now - then;
  finding.expected_gain = fmt::format("compute time {} -> {} if accuracy allows {}",
                                      FormatSeconds(now), FormatSeconds(then), faster->scope);
  return finding;
}

std::optional<Finding> NetworkBound(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  if (v.bound != Bound::kNetwork) return std::nullopt;
  const BoundTerm* network = TermOf(v, Bound::kNetwork);
  double other = 0;
  for (const BoundTerm& term : v.terms) {
    if (term.bound != Bound::kNetwork) other = std::max(other, term.seconds);
  }
  Finding finding;
  finding.reason =
      fmt::format("{} of collective traffic needs {} at {} ({}); the rest of the point needs {}",
                  FormatBytes(network->amount), FormatSeconds(network->seconds),
                  FormatBandwidth(network->ceiling_value), network->ceiling, FormatSeconds(other));
  finding.gain_seconds = std::min(network->seconds, TimeOf(v));
  finding.expected_gain = fmt::format(
      "up to {} hidden when the collectives overlap other work, or fewer bytes with another "
      "sharding",
      FormatSeconds(*finding.gain_seconds));
  return finding;
}

std::optional<Finding> SmallCollectives(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  const double message = v.point.collective_message_bytes;
  if (v.bound != Bound::kNetwork || message <= 0 || message >= kSmallCollectiveBytes) {
    return std::nullopt;
  }
  const BoundTerm* network = TermOf(v, Bound::kNetwork);
  Finding finding;
  finding.reason = fmt::format(
      "each collective moves {}; below {} latency dominates and bus bandwidth falls short of "
      "the {} measured at large sizes",
      FormatBytes(message), FormatBytes(kSmallCollectiveBytes),
      FormatBandwidth(network->ceiling_value));
  finding.gain_seconds = v.headroom_seconds;
  finding.expected_gain = v.headroom_seconds
                              ? fmt::format("up to {} (the gap to the large-message roof)",
                                            FormatSeconds(*v.headroom_seconds))
                              : std::string("closer to the large-message bus bandwidth");
  return finding;
}

std::optional<Finding> HostTransferBound(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  if (v.bound != Bound::kHostLink) return std::nullopt;
  const BoundTerm* host = TermOf(v, Bound::kHostLink);
  Finding finding;
  finding.reason = fmt::format("{} over the host link needs {} at {} ({})",
                               FormatBytes(host->amount), FormatSeconds(host->seconds),
                               FormatBandwidth(host->ceiling_value), host->ceiling);
  finding.gain_seconds = std::min(host->seconds, TimeOf(v));
  finding.expected_gain = fmt::format(
      "up to {} hidden behind compute with prefetching; more when pinned buffers raise the "
      "link's bandwidth",
      FormatSeconds(*finding.gain_seconds));
  return finding;
}

std::optional<Finding> AboveRoof(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  if (!v.above_roof) return std::nullopt;
  Finding finding;
  finding.reason = fmt::format("measured {} but the roof allows no less than {}",
                               FormatSeconds(*v.point.time_seconds), FormatSeconds(v.roof_seconds));
  finding.expected_gain = "a verdict that can be trusted";
  return finding;
}

// The device's capacity for the workload: the file's, else the result directory's device.
double CapacityOf(const AdviceContext& c) {
  const MemoryUse& use = *c.workload->memory;
  return use.capacity_bytes > 0 ? use.capacity_bytes : c.device_memory_bytes;
}

std::optional<Finding> MemoryDoesNotFit(const AdviceContext& c, size_t) {
  if (!c.workload->memory) return std::nullopt;
  const MemoryUse& use = *c.workload->memory;
  const double capacity = CapacityOf(c);
  if (capacity <= 0 || use.peak_bytes <= capacity) return std::nullopt;
  Finding finding;
  finding.reason = fmt::format(
      "the working set {} does not fit in the device's {}: {} more than it holds ({:.1f}x)",
      FormatBytes(use.peak_bytes), FormatBytes(capacity), FormatBytes(use.peak_bytes - capacity),
      use.peak_bytes / capacity);
  finding.expected_gain = fmt::format(
      "a run at all: shard or offload at least {} (more ranks, FSDP/ZeRO-3, CPU offload), or a "
      "smaller batch",
      FormatBytes(use.peak_bytes - capacity));
  return finding;
}

std::optional<Finding> MemoryNearlyFull(const AdviceContext& c, size_t) {
  if (!c.workload->memory) return std::nullopt;
  const MemoryUse& use = *c.workload->memory;
  const double capacity = CapacityOf(c);
  // Above capacity it does not fit at all: memory_does_not_fit says so.
  if (capacity <= 0 || use.peak_bytes < kMemoryNearlyFull * capacity || use.peak_bytes > capacity) {
    return std::nullopt;
  }
  Finding finding;
  finding.reason = fmt::format("peak device memory {} of {} ({})", FormatBytes(use.peak_bytes),
                               FormatBytes(capacity), Percent(use.peak_bytes / capacity));
  const double to_free = use.peak_bytes - 0.8 * capacity;
  finding.expected_gain = fmt::format(
      "freeing {} brings the peak to 80%: room for a larger batch and no out-of-memory retries",
      FormatBytes(to_free));
  return finding;
}

}  // namespace

const std::vector<AdviceRule>& AdviceRules() {
  static const std::vector<AdviceRule> kRules = {
      {"fuse_elementwise_chain", RuleScope::kPoint,
       "two or more elementwise ops that ran back to back (a trace, or follows_previous), each "
       "memory-bound",
       "Fuse the chain into one kernel (torch.compile, XLA fusion, a hand-written epilogue) so "
       "intermediates stay in registers or cache instead of round-tripping through memory.",
       FuseElementwise},
      {"gemm_low_intensity", RuleScope::kPoint,
       "a GEMM whose intensity is below the ridge point (memory-bound)",
       "Raise the GEMM's intensity: a larger batch (more rows share each weight read), fuse the "
       "epilogue (bias, activation, residual) into the GEMM, keep weights resident across "
       "micro-batches.",
       GemmLowIntensity},
      {"compute_below_peak", RuleScope::kPoint,
       "compute-bound at less than 50% of the compute roof (and no traffic without a ceiling)",
       "Tune the kernel: use the vendor library (cuBLASLt, oneDNN, OpenBLAS) or autotune tile "
       "sizes, pad shapes to multiples of 64/128, check threads/occupancy and that the "
       "intended instruction set (AVX-512, tensor cores) is used.",
       ComputeBelowPeak},
      {"lower_precision", RuleScope::kPoint,
       "compute-bound and the next lower precision of the same kind (fp64 -> fp32; fp32 -> "
       "tf32/bf16/fp16; bf16/fp16 -> fp8/int8) has a roof at least 1.5x higher, measured against "
       "measured or spec against spec",
       "Run the matrix work in that lower precision on the matrix units where accuracy allows; "
       "keep accumulations in fp32. It changes the numerical result: check it.",
       LowerPrecision},
      {"network_bound", RuleScope::kPoint, "the collective term is the largest",
       "Overlap communication with compute (bucketed gradient all-reduce during backward, async "
       "collectives), change the mesh sharding so the heaviest axis stays on the fastest links, "
       "and send fewer bytes (bf16 gradients, reduce-scatter instead of all-reduce).",
       NetworkBound},
      {"small_collectives", RuleScope::kPoint,
       "network-bound and each collective call moves less than 4 MB",
       "Use larger buckets: combine small collectives (DDP bucket_cap_mb, XLA combine "
       "thresholds, NCCL grouping) so each call moves tens of MB.",
       SmallCollectives},
      {"host_transfer_bound", RuleScope::kPoint, "the host-link term is the largest",
       "Use pinned (page-locked) host buffers, prefetch the next batch while computing (double "
       "buffering, non_blocking copies), and batch small copies into large transfers.",
       HostTransferBound},
      {"above_roof", RuleScope::kPoint, "measured time below the roof's lower bound",
       "Check the counts: FLOPs or bytes are overcounted (cache reuse counted as memory "
       "traffic?) or a ceiling was under-measured; re-run the benchmarks.",
       AboveRoof},
      {"memory_does_not_fit", RuleScope::kWorkload,
       "peak device memory above capacity (workload file: memory)",
       "The workload cannot run as given: shard parameters, gradients and optimizer state over "
       "more devices (FSDP, ZeRO-3), offload to host memory, or lower the batch.",
       MemoryDoesNotFit},
      {"memory_nearly_full", RuleScope::kWorkload,
       "peak device memory at least 90% of capacity (workload file: memory)",
       "Free device memory: activation checkpointing (rematerialise activations in the backward "
       "pass), a smaller micro-batch with gradient accumulation, shard optimizer state "
       "(ZeRO-1/2, FSDP).",
       MemoryNearlyFull},
  };
  return kRules;
}

std::vector<Advice> Advise(const AdviceContext& context) {
  std::vector<Advice> out;
  auto emit = [&](const AdviceRule& rule, const std::string& point, Finding finding) {
    out.push_back({std::string(rule.id), point, std::string(rule.advice), std::move(finding.reason),
                   std::move(finding.expected_gain), finding.gain_seconds});
  };
  for (size_t i = 0; i < context.analysis->verdicts.size(); ++i) {
    for (const AdviceRule& rule : AdviceRules()) {
      if (rule.scope != RuleScope::kPoint) continue;
      // A verdict bound by an unstable ceiling is not judged, so it gets no advice.
      if (context.analysis->verdicts[i].unstable) continue;
      if (auto finding = rule.check(context, i)) {
        emit(rule, context.analysis->verdicts[i].point.name, std::move(*finding));
      }
    }
  }
  for (const AdviceRule& rule : AdviceRules()) {
    if (rule.scope != RuleScope::kWorkload) continue;
    if (auto finding = rule.check(context, 0)) emit(rule, "workload", std::move(*finding));
  }
  return out;
}

}  // namespace xpuperf::roofline

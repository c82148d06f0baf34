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
std::optional<Finding> FuseElementwise(const AdviceContext& c, size_t i) {
  const auto& verdicts = c.analysis->verdicts;
  if (!IsMemoryBoundElementwise(verdicts[i])) return std::nullopt;
  if (i > 0 && IsMemoryBoundElementwise(verdicts[i - 1])) return std::nullopt;
  size_t end = i;
  while (end + 1 < verdicts.size() && IsMemoryBoundElementwise(verdicts[end + 1])) ++end;
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

int PrecisionRank(std::string_view dtype) {
  if (dtype == "fp64") return 0;
  if (dtype == "fp32" || dtype == "tf32" || dtype == "int32") return 1;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8" || dtype == "int8") return 3;
  return -1;
}

std::optional<Finding> LowerPrecision(const AdviceContext& c, size_t i) {
  const PointVerdict& v = VerdictAt(c, i);
  if (v.bound != Bound::kCompute || !v.peak_flops) return std::nullopt;
  const int rank = PrecisionRank(v.point.dtype);
  const Ceiling* faster = nullptr;
  for (const Ceiling& ceiling : c.ceilings->all) {
    if (ceiling.kind != CeilingKind::kCompute || PrecisionRank(ceiling.scope) <= rank ||
        ceiling.value < kPrecisionSpeedup * *v.peak_flops) {
      continue;
    }
    if (faster == nullptr || ceiling.value > faster->value) faster = &ceiling;
  }
  if (faster == nullptr) return std::nullopt;
  Finding finding;
  finding.reason = fmt::format("compute-bound in {} ({}); {} reaches {} ({:.1f}x)", v.point.dtype,
                               FormatFlops(*v.peak_flops), faster->Label(),
                               FormatFlops(faster->value), faster->value / *v.peak_flops);
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

std::optional<Finding> MemoryNearlyFull(const AdviceContext& c, size_t) {
  if (!c.workload->memory) return std::nullopt;
  const MemoryUse& use = *c.workload->memory;
  const double capacity = use.capacity_bytes > 0 ? use.capacity_bytes : c.device_memory_bytes;
  if (capacity <= 0 || use.peak_bytes < kMemoryNearlyFull * capacity) return std::nullopt;
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
       "two or more consecutive elementwise ops, each memory-bound",
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
       "compute-bound and a lower precision has a ceiling at least 1.5x higher",
       "Run the matrix work in a lower precision on the matrix units (bf16, or fp8 with "
       "scaling; tf32 for fp32 models) where accuracy allows; keep accumulations in fp32.",
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

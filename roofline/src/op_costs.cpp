#include "op_costs.h"

#include <fmt/format.h>

#include <cmath>

namespace xpuperf::roofline {
namespace {

Status Positive(double value, std::string_view name) {
  if (!std::isfinite(value) || value <= 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{} must be a positive number (got {})", name, value));
  }
  return Status::Ok();
}

Status NonNegative(double value, std::string_view name) {
  if (!std::isfinite(value) || value < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{} must not be negative (got {})", name, value));
  }
  return Status::Ok();
}

}  // namespace

Result<double> DtypeBytes(std::string_view dtype) {
  struct Entry {
    std::string_view name;
    double bytes;
  };
  static constexpr Entry kTypes[] = {{"fp64", 8}, {"fp32", 4}, {"tf32", 4}, {"int32", 4},
                                     {"bf16", 2}, {"fp16", 2}, {"fp8", 1},  {"int8", 1}};
  for (const Entry& entry : kTypes) {
    if (entry.name == dtype) return entry.bytes;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown dtype '{}' (known: fp64, fp32, tf32, int32, bf16, fp16, "
                               "fp8, int8)",
                               dtype));
}

Result<OpCost> GemmCost(const GemmShape& s) {
  XPUPERF_RETURN_IF_ERROR(Positive(s.m, "gemm.m"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.n, "gemm.n"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.k, "gemm.k"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.batch, "gemm.batch"));
  XPUPERF_ASSIGN_OR_RETURN(const double size, DtypeBytes(s.dtype));
  OpCost cost;
  const double per_product = 2 * s.m * s.n * s.k + (s.accumulate ? 2 * s.m * s.n : 0);
  cost.flops = s.batch * per_product;
  const double elements = s.m * s.k + s.k * s.n + s.m * s.n + (s.accumulate ? s.m * s.n : 0);
  cost.bytes = s.batch * elements * size;
  cost.formula =
      fmt::format("FLOP = {}2mnk{} = {:.6g}; bytes = {}(mk + kn + mn{}) x {} B = {:.6g}",
                  s.batch != 1 ? "batch x " : "", s.accumulate ? " + 2mn" : "", cost.flops,
                  s.batch != 1 ? "batch x " : "", s.accumulate ? " + mn" : "", size, cost.bytes);
  return cost;
}

Result<OpCost> AttentionCost(const AttentionShape& s) {
  XPUPERF_RETURN_IF_ERROR(Positive(s.batch, "attention.batch"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.heads, "attention.heads"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.seq_len, "attention.seq_len"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.head_dim, "attention.head_dim"));
  XPUPERF_RETURN_IF_ERROR(NonNegative(s.kv_seq_len, "attention.kv_seq_len"));
  XPUPERF_ASSIGN_OR_RETURN(const double size, DtypeBytes(s.dtype));
  const double sq = s.seq_len;
  const double skv = s.kv_seq_len > 0 ? s.kv_seq_len : s.seq_len;
  const double per_dim = s.causal ? 4 * sq * skv - 2 * sq * sq : 4 * sq * skv;
  OpCost cost;
  cost.flops = per_dim * s.heads * s.head_dim * s.batch;
  cost.bytes = (2 * sq + 2 * skv) * s.heads * s.head_dim * s.batch * size;
  cost.formula = fmt::format(
      "FLOP = {} x heads x head_dim x batch = {:.6g}; bytes = (2 s_q + 2 s_kv) x heads x "
      "head_dim x batch x {} B = {:.6g}",
      s.causal ? "(4 s_q s_kv - 2 s_q^2)" : "4 s_q s_kv", cost.flops, size, cost.bytes);
  return cost;
}

Result<OpCost> ElementwiseCost(const ElementwiseShape& s) {
  XPUPERF_RETURN_IF_ERROR(Positive(s.elements, "elementwise.elements"));
  XPUPERF_RETURN_IF_ERROR(NonNegative(s.inputs, "elementwise.inputs"));
  XPUPERF_RETURN_IF_ERROR(NonNegative(s.outputs, "elementwise.outputs"));
  XPUPERF_RETURN_IF_ERROR(NonNegative(s.flops_per_element, "elementwise.flops_per_element"));
  XPUPERF_ASSIGN_OR_RETURN(const double size, DtypeBytes(s.dtype));
  OpCost cost;
  cost.flops = s.elements * s.flops_per_element;
  cost.bytes = s.elements * (s.inputs + s.outputs) * size;
  cost.formula = fmt::format(
      "FLOP = elements x {} = {:.6g}; bytes = elements x ({} in + {} out) x {} B = {:.6g}",
      s.flops_per_element, cost.flops, s.inputs, s.outputs, size, cost.bytes);
  return cost;
}

Result<OpCost> Conv2dCost(const Conv2dShape& s) {
  XPUPERF_RETURN_IF_ERROR(Positive(s.batch, "conv2d.batch"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.in_channels, "conv2d.in_channels"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.out_channels, "conv2d.out_channels"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.height, "conv2d.height"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.width, "conv2d.width"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.kernel_h, "conv2d.kernel_h"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.kernel_w, "conv2d.kernel_w"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.stride, "conv2d.stride"));
  XPUPERF_RETURN_IF_ERROR(NonNegative(s.padding, "conv2d.padding"));
  XPUPERF_RETURN_IF_ERROR(Positive(s.groups, "conv2d.groups"));
  XPUPERF_ASSIGN_OR_RETURN(const double size, DtypeBytes(s.dtype));
  const double out_h = std::floor((s.height + 2 * s.padding - s.kernel_h) / s.stride) + 1;
  const double out_w = std::floor((s.width + 2 * s.padding - s.kernel_w) / s.stride) + 1;
  if (out_h < 1 || out_w < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "conv2d: the kernel is larger than the padded input");
  }
  const double in_per_group = s.in_channels / s.groups;
  OpCost cost;
  cost.flops =
      2 * s.batch * s.out_channels * out_h * out_w * in_per_group * s.kernel_h * s.kernel_w;
  cost.bytes = (s.batch * s.in_channels * s.height * s.width +
                s.out_channels * in_per_group * s.kernel_h * s.kernel_w +
                s.batch * s.out_channels * out_h * out_w) *
               size;
  cost.formula = fmt::format(
      "out {}x{}; FLOP = 2 N K out_h out_w (C/groups) kh kw = {:.6g}; bytes = (input + weights + "
      "output) x {} B = {:.6g}",
      out_h, out_w, cost.flops, size, cost.bytes);
  return cost;
}

Result<double> CollectiveBusBytes(std::string_view op, double bytes, double ranks) {
  XPUPERF_RETURN_IF_ERROR(Positive(bytes, "collective.bytes"));
  if (!std::isfinite(ranks) || ranks < 1) {
    return MakeError(ErrorCode::kInvalidArgument, "collective.ranks must be at least 1");
  }
  const double n = ranks;
  if (op == "all_reduce") return bytes * 2 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") {
    return bytes * (n - 1) / n;
  }
  if (op == "broadcast" || op == "reduce" || op == "send_recv") return bytes;
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown collective '{}' (known: all_reduce, all_gather, "
                               "reduce_scatter, all_to_all, broadcast, reduce, send_recv)",
                               op));
}

}  // namespace xpuperf::roofline

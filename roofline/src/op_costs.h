// FLOPs and bytes of common operations, so a workload can be described by its shapes. Bytes are
// the minimum traffic to and from main memory: every input read once, every output written once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::roofline {

// Bytes per element: fp64 8; fp32, tf32, int32 4; bf16, fp16 2; fp8, int8 1. kInvalidArgument
// naming the known types otherwise.
Result<double> DtypeBytes(std::string_view dtype);

struct OpCost {
  double flops = 0;
  double bytes = 0;
  std::string formula;  // the counts, e.g. "FLOP = 2mnk = 2 x 4096 x 4096 x 4096"
};

// C[m,n] = A[m,k] B[k,n] (batch independent products). FLOP = 2mnk per product (+2mn when
// accumulate, C = A B + C); bytes = (mk + kn + mn) x size (+ mn x size read when accumulate).
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1;
  bool accumulate = false;
  std::string dtype = "fp32";
};
Result<OpCost> GemmCost(const GemmShape& shape);

// softmax(Q K^T / sqrt(d)) V, forward. FLOP = 4 s_q s_kv heads head_dim batch; causal
// (4 s_q s_kv - 2 s_q^2) heads head_dim batch. Bytes as a fused (flash) kernel: Q, K, V read and O
// written once = (2 s_q + 2 s_kv) heads head_dim batch x size.
struct AttentionShape {
  double batch = 1, heads = 1, seq_len = 0, head_dim = 0;
  double kv_seq_len = 0;  // 0 = seq_len
  bool causal = false;
  std::string dtype = "bf16";
};
Result<OpCost> AttentionCost(const AttentionShape& shape);

// out = f(in_1..in_inputs) element by element. FLOP = elements x flops_per_element; bytes =
// elements x (inputs + outputs) x size.
struct ElementwiseShape {
  double elements = 0;
  double inputs = 1, outputs = 1;
  double flops_per_element = 1;
  std::string dtype = "fp32";
};
Result<OpCost> ElementwiseCost(const ElementwiseShape& shape);

// Direct 2-D convolution, NCHW. out = (in + 2 padding - kernel) / stride + 1 per spatial axis.
// FLOP = 2 N K out_h out_w (C / groups) kh kw; bytes = (N C H W + K (C / groups) kh kw +
// N K out_h out_w) x size.
struct Conv2dShape {
  double batch = 1, in_channels = 0, out_channels = 0, height = 0, width = 0;
  double kernel_h = 0, kernel_w = 0;
  double stride = 1, padding = 0, groups = 1;
  std::string dtype = "fp32";
};
Result<OpCost> Conv2dCost(const Conv2dShape& shape);

// Bus bytes of one collective of `bytes` (nccl-tests S) over `ranks`: S x busbw factor, so that
// bus bytes / busbw = time. all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n;
// broadcast, reduce, send_recv 1.
Result<double> CollectiveBusBytes(std::string_view op, double bytes, double ranks);

}  // namespace xpuperf::roofline

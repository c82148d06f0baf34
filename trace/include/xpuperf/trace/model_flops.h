// Model FLOPs from recorded shapes, and model FLOP utilisation (MFU).
//
// A PyTorch trace recorded with record_shapes=True gives each operator its "Input Dims" (and, from
// PyTorch 2.1, its scalar arguments as "Concrete Inputs"). The FLOPs of the operators that do the
// model's arithmetic follow from those shapes with the accounting of PyTorch's own counter
// (torch.utils.flop_counter):
//   matrix products (aten::mm, addmm, bmm, baddbmm, addbmm, matmul, linear): 2·batch·M·N·K;
//   aten::convolution: 2·N·(output spatial size)·C_out·(C_in/groups)·(kernel size), the output
//     size from the input, stride, padding and dilation (a transposed convolution: the input's
//     spatial size in place of the output's);
//   aten::convolution_backward: the forward's FLOPs once for each gradient it computes
//     (output_mask: input, weight);
//   scaled-dot-product attention (aten::scaled_dot_product_attention and the fused
//     _scaled_dot_product_{flash,efficient,cudnn}_attention ops): 2·B·H·L·S·(E + Ev) for
//     Q [B, H, L, E], K [B, H, S, E], V [B, H, S, Ev]; a causal mask is not subtracted (as in
//     PyTorch's counter and the PaLM definition of MFU); its backward ops
//     2·B·H·L·S·(3E + 2Ev): PyTorch's count, which includes recomputing the scores.
// Only the outermost such operator of a call stack counts (aten::linear, not the aten::addmm
// inside it), so nothing is counted twice; an operator whose shapes cannot be read leaves the
// operators inside it to be counted instead. Operators that run again to recompute activations
// (checkpointing) are counted again: then the figure is closer to hardware FLOP utilisation.
//
// MFU of a step = Σ over its operators of FLOPs / peak FLOP/s of the operator's precision,
// divided by the step's wall time: the fraction of the step the device would have needed at its
// spec-sheet peak. Steps are PyTorch's ProfilerStep#N ranges (an operator belongs to the step
// its start lies in); a trace without them is one step over its whole span.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// What an operator name computes, for counting its FLOPs.
enum class FlopOp : uint8_t {
  kNone,
  kMatrixProduct,
  kConvolution,
  kConvolutionBackward,
  kAttention,
  kAttentionBackward,
};
FlopOp FlopOpOf(std::string_view name);
// Whether the parser keeps an operator's "Concrete Inputs" (the convolutions' stride, padding,
// dilation, transposed flag, groups and output mask).
bool NeedsConcreteInputs(std::string_view name);

// The precision an operator ran at, from its first "Input type" ("float", "c10::BFloat16") and the
// name of a kernel it launched (empty on a CPU trace): "fp64", "fp32", "tf32" (float inputs on an
// NVIDIA tensor-core kernel), "bf16", "fp16", "fp8", "int8". Unknown types count as fp32, with the
// reason in `note` (when given).
std::string OpPrecision(std::string_view input_type, std::string_view kernel, std::string* note);

// FLOPs of one call of `op` from its recorded shapes; -1 when they do not define them.
double OpFlops(const Trace& trace, const TraceEvent& op);

struct StepFlops {
  std::string name;  // "ProfilerStep#3", or "trace" for the whole span
  int64_t begin_ns = 0;
  int64_t dur_ns = 0;
  std::map<std::string, double> flops;  // by precision
};

struct ModelFlops {
  std::vector<StepFlops> steps;  // in time order
  bool whole_trace = false;      // no ProfilerStep#N: one step over the trace's span
  std::map<std::string, double> flops_by_precision;  // over the steps
  double matrix_product_flops = 0, convolution_flops = 0, attention_flops = 0;
  int64_t counted_ops = 0;
  // Operators of a FLOP-counting name that counted nothing: no Input Dims recorded, or shapes (or
  // the convolution's Concrete Inputs, PyTorch < 2.1) that do not define the FLOPs.
  int64_t ops_without_shapes = 0;
  int64_t ops_with_unusable_shapes = 0;
  std::vector<std::string> precision_notes;  // how unknown input types were counted
};
ModelFlops ComputeModelFlops(const Trace& trace);

// Peak FLOP/s per precision of the device a trace ran on, and where they come from.
struct PeakFlops {
  std::string device;  // "NVIDIA A100-SXM4-80GB"
  std::string source;  // "spec sheet nvidia-a100-sxm-80gb (the trace's deviceProperties)"
  std::map<std::string, double> per_precision;  // FLOP/s
  std::string unavailable;  // why there are no peaks (per_precision empty), else empty
};

// The peak used for `precision`: its own, else the nearest one the sheet has that is at least as
// wide (bf16 -> fp32), named in `used` ("fp32 (no bf16 peak)"); 0 when none.
double PeakFor(const PeakFlops& peaks, const std::string& precision, std::string* used);

}  // namespace xpuperf::trace

// Model FLOPs from recorded shapes (model_flops.h).
#include "xpuperf/trace/model_flops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "analysis_util.h"
#include "xpuperf/trace/findings.h"

namespace xpuperf::trace {
namespace {

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// rocBLAS/Tensile (Cijk_...) and MFMA kernels: AMD matrix cores run float as fp32 (MI200 has no
// TF32), so their float GEMMs stay fp32.
bool IsAmdMatrixKernel(std::string_view kernel) {
  std::string lower(kernel);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return Contains(lower, "cijk_") || Contains(lower, "mfma") || Contains(lower, "mi16x16") ||
         Contains(lower, "mi32x32");
}

double Prod(const std::vector<int64_t>& dims, size_t from, size_t to) {
  const int64_t p = internal::Product(dims, from, to);
  return p < 0 ? -1 : static_cast<double>(p);
}

// The i-th Concrete Input as a list of `n` values (one value repeated, as PyTorch expands it);
// false when it is missing or of another length.
bool ConcreteList(const std::vector<std::vector<int64_t>>& concrete, size_t i, size_t n,
                  std::vector<int64_t>* out) {
  if (i >= concrete.size() || concrete[i].empty()) return false;
  if (concrete[i].size() == 1) {
    out->assign(n, concrete[i][0]);
    return true;
  }
  if (concrete[i].size() != n) return false;
  *out = concrete[i];
  return true;
}

// Forward convolution FLOPs from input [N, C, spatial..], weight [O, C/g, kernel..] (transposed:
// [C, O/g, kernel..]) and, unless transposed, the output's spatial size. -1 when undefined.
double ConvolutionFlops(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                        const std::vector<int64_t>& spatial) {
  const size_t dims = input.size();
  if (dims < 3 || weight.size() != dims || spatial.size() != dims - 2) return -1;
  const double batch = static_cast<double>(input[0]);
  const double channels = Prod(weight, 0, 2);  // C_out · C_in/groups
  const double kernel = Prod(weight, 2, dims);
  const double positions = Prod(spatial, 0, spatial.size());
  if (batch <= 0 || channels <= 0 || kernel <= 0 || positions <= 0) return -1;
  return 2.0 * batch * positions * channels * kernel;
}

// aten::convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups).
double ForwardConvolutionFlops(const std::vector<std::vector<int64_t>>& in,
                               const std::vector<std::vector<int64_t>>& concrete) {
  if (in.size() < 2 || in[0].size() < 3) return -1;
  const std::vector<int64_t>& input = in[0];
  const std::vector<int64_t>& weight = in[1];
  const size_t n = input.size() - 2;
  if (concrete.size() > 6 && concrete[6].size() == 1 && concrete[6][0] == 1) {
    // Transposed: the work is per input position.
    return ConvolutionFlops(input, weight, {input.begin() + 2, input.end()});
  }
  std::vector<int64_t> stride, padding, dilation;
  if (weight.size() != input.size() || !ConcreteList(concrete, 3, n, &stride) ||
      !ConcreteList(concrete, 4, n, &padding) || !ConcreteList(concrete, 5, n, &dilation)) {
    return -1;
  }
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (stride[i] <= 0 || input[i + 2] < 0 || weight[i + 2] < 0) return -1;
    const int64_t span = input[i + 2] + 2 * padding[i] - dilation[i] * (weight[i + 2] - 1) - 1;
    if (span < 0) return -1;
    out[i] = span / stride[i] + 1;
  }
  return ConvolutionFlops(input, weight, out);
}

// aten::convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): the forward's FLOPs per gradient of the input
// and of the weight it computes.
double BackwardConvolutionFlops(const std::vector<std::vector<int64_t>>& in,
                                const std::vector<std::vector<int64_t>>& concrete) {
  if (in.size() < 3 || in[0].size() < 3) return -1;
  const bool transposed = concrete.size() > 7 && concrete[7].size() == 1 && concrete[7][0] == 1;
  const std::vector<int64_t>& grad_output = in[0];
  const std::vector<int64_t>& input = in[1];
  const std::vector<int64_t>& weight = in[2];
  // The forward's positions: the output's (the gradient's) or, transposed, the input's.
  const std::vector<int64_t>& positions = transposed ? input : grad_output;
  if (positions.size() < 3) return -1;
  const double forward = ConvolutionFlops(input, weight, {positions.begin() + 2, positions.end()});
  if (forward < 0) return -1;
  int gradients = 2;  // without an output_mask: both
  if (concrete.size() > 10 && concrete[10].size() == 3) {
    gradients = static_cast<int>(concrete[10][0] != 0) + static_cast<int>(concrete[10][1] != 0);
  }
  return forward * gradients;
}

// Q [batch.., L, E], K [batch.., S, E], V [batch.., S, Ev] from the inputs at `first`.
double AttentionFlops(const std::vector<std::vector<int64_t>>& in, size_t first) {
  if (in.size() < first + 3) return -1;
  const auto& q = in[first];
  const auto& k = in[first + 1];
  const auto& v = in[first + 2];
  if (q.size() < 2 || k.size() != q.size() || v.size() != q.size()) return -1;
  const size_t r = q.size();
  const double batch = Prod(q, 0, r - 2);
  const double l = static_cast<double>(q[r - 2]), e = static_cast<double>(q[r - 1]);
  const double s = static_cast<double>(k[r - 2]), ev = static_cast<double>(v[r - 1]);
  if (batch <= 0 || l <= 0 || e <= 0 || s <= 0 || ev <= 0) return -1;
  return 2.0 * batch * l * s * (e + ev);
}

// The backward ops (grad_out, q, k, v, ...), as PyTorch's counter counts them: the scores again
// (2·L·S·E), the gradients through scores·V (2·2·L·S·Ev) and through Q·Kᵀ (2·2·L·S·E).
double AttentionBackwardFlops(const std::vector<std::vector<int64_t>>& in) {
  const double forward = AttentionFlops(in, 1);  // 2·B·H·L·S·(E + Ev)
  if (forward < 0) return -1;
  const auto& q = in[1];
  const auto& v = in[3];
  const double e = static_cast<double>(q.back()), ev = static_cast<double>(v.back());
  return forward * (3 * e + 2 * ev) / (e + ev);
}

}  // namespace

FlopOp FlopOpOf(std::string_view name) {
  if (IsGemmOpName(name)) return FlopOp::kMatrixProduct;
  if (name == "aten::convolution") return FlopOp::kConvolution;
  if (name == "aten::convolution_backward") return FlopOp::kConvolutionBackward;
  static constexpr std::string_view kAttention[] = {
      "aten::scaled_dot_product_attention",
      "aten::_scaled_dot_product_flash_attention",
      "aten::_scaled_dot_product_efficient_attention",
      "aten::_scaled_dot_product_cudnn_attention",
      "aten::_scaled_dot_product_flash_attention_for_cpu",
  };
  for (std::string_view a : kAttention) {
    if (name == a) return FlopOp::kAttention;
    if (name.size() == a.size() + 9 && name.substr(0, a.size()) == a &&
        name.substr(a.size()) == "_backward" && a != kAttention[0]) {
      return FlopOp::kAttentionBackward;
    }
  }
  return FlopOp::kNone;
}

bool NeedsConcreteInputs(std::string_view name) {
  const FlopOp op = FlopOpOf(name);
  return op == FlopOp::kConvolution || op == FlopOp::kConvolutionBackward;
}

std::string OpPrecision(std::string_view type, std::string_view kernel, std::string* note) {
  if (Contains(type, "BFloat16") || type == "bfloat16") return "bf16";
  if (Contains(type, "Half") || type == "half") return "fp16";
  if (Contains(type, "Float8")) return "fp8";
  if (type == "double" || Contains(type, "Double")) return "fp64";
  if (type == "signed char" || Contains(type, "int8") || Contains(type, "Int8")) return "int8";
  if (type == "float") {
    if (!kernel.empty() && IsTensorCoreKernel(kernel) && !IsAmdMatrixKernel(kernel)) {
      if (note != nullptr) {
        *note = fmt::format("float inputs on the tensor-core kernel {}: counted as tf32", kernel);
      }
      return "tf32";
    }
    return "fp32";
  }
  if (note != nullptr) {
    *note = type.empty() ? "no Input type recorded: counted as fp32"
                         : fmt::format(
                               "Input type '{}' is not a precision xpuperf knows: counted "
                               "as fp32",
                               type);
  }
  return "fp32";
}

double OpFlops(const Trace& trace, const TraceEvent& op) {
  const FlopOp kind = FlopOpOf(trace.Name(op));
  if (kind == FlopOp::kNone || op.input_dims < 0) return -1;
  const auto in = trace.InputDims(op);
  switch (kind) {
    case FlopOp::kMatrixProduct: {
      GemmPoint shape;
      if (!internal::GemmShape(trace.Name(op), in, &shape)) return -1;
      return 2.0 * static_cast<double>(shape.batch) * static_cast<double>(shape.m) *
             static_cast<double>(shape.n) * static_cast<double>(shape.k);
    }
    case FlopOp::kConvolution:
      return ForwardConvolutionFlops(in, trace.ConcreteInputs(op));
    case FlopOp::kConvolutionBackward:
      return BackwardConvolutionFlops(in, trace.ConcreteInputs(op));
    case FlopOp::kAttention:
      return AttentionFlops(in, 0);
    case FlopOp::kAttentionBackward:
      return AttentionBackwardFlops(in);
    case FlopOp::kNone:
      break;
  }
  return -1;
}

ModelFlops ComputeModelFlops(const Trace& trace) {
  ModelFlops result;
  // Steps: the host's ProfilerStep#N ranges, one per name.
  std::set<uint32_t> step_names;
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const TraceEvent& e : trace.events) {
    first = std::min(first, e.ts_ns);
    last = std::max(last, e.end_ns());
    if ((e.kind != EventKind::kCpuOp && e.kind != EventKind::kUserAnnotation) || e.dur_ns <= 0) {
      continue;
    }
    if (trace.Name(e).rfind("ProfilerStep#", 0) == 0 && step_names.insert(e.name).second) {
      result.steps.push_back({std::string(trace.Name(e)), e.ts_ns, e.dur_ns, {}});
    }
  }
  if (result.steps.empty() && first < last) {
    result.whole_trace = true;
    result.steps.push_back({"trace", first, last - first, {}});
  }
  std::sort(result.steps.begin(), result.steps.end(),
            [](const StepFlops& a, const StepFlops& b) { return a.begin_ns < b.begin_ns; });

  // The outermost FLOP op of each call stack, per thread; every CPU op inside it maps its External
  // id to it (the kernels it launched tell a float op's tf32).
  struct Counted {
    uint32_t event;
    double flops;
    bool tensor_core = false;
  };
  std::vector<Counted> counted;
  std::unordered_map<int64_t, size_t> counted_of_external;  // External id -> counted index
  struct ThreadState {
    int64_t counted_until = INT64_MIN;  // end of the open counted op
    size_t counted = 0;
    int64_t missing_until = INT64_MIN;   // end of the open outermost op that counted nothing
    int64_t* missing_counter = nullptr;  // where it was counted; null once an op inside counted
  };
  std::unordered_map<uint64_t, ThreadState> threads;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.kind != EventKind::kCpuOp) continue;
    ThreadState& t = threads[(static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) |
                             static_cast<uint32_t>(e.tid)];
    if (e.ts_ns < t.counted_until) {
      if (e.external_id >= 0) counted_of_external.emplace(e.external_id, t.counted);
      continue;
    }
    const FlopOp kind = FlopOpOf(trace.Name(e));
    if (kind == FlopOp::kNone) continue;
    const double flops = OpFlops(trace, e);
    const bool inside_missing = e.ts_ns < t.missing_until;
    if (flops < 0) {
      if (!inside_missing) {
        t.missing_counter =
            e.input_dims < 0 ? &result.ops_without_shapes : &result.ops_with_unusable_shapes;
        ++*t.missing_counter;
        t.missing_until = e.end_ns();
      }
      continue;
    }
    if (inside_missing && t.missing_counter != nullptr) {
      // The op around it had no usable shapes, but this one counts what it did.
      --*t.missing_counter;
      t.missing_counter = nullptr;
    }
    t.counted_until = std::max(e.end_ns(), e.ts_ns + 1);
    t.counted = counted.size();
    if (e.external_id >= 0) counted_of_external.emplace(e.external_id, counted.size());
    counted.push_back({i, flops});
    if (kind == FlopOp::kMatrixProduct) result.matrix_product_flops += flops;
    if (kind == FlopOp::kConvolution || kind == FlopOp::kConvolutionBackward) {
      result.convolution_flops += flops;
    }
    if (kind == FlopOp::kAttention || kind == FlopOp::kAttentionBackward) {
      result.attention_flops += flops;
    }
  }
  std::vector<uint32_t> first_kernel(counted.size(), UINT32_MAX);  // name id of a launched kernel
  if (!counted_of_external.empty()) {
    for (const TraceEvent& k : trace.events) {
      if (k.kind != EventKind::kKernel || k.external_id < 0) continue;
      auto found = counted_of_external.find(k.external_id);
      if (found == counted_of_external.end()) continue;
      Counted& c = counted[found->second];
      if (!c.tensor_core && IsTensorCoreKernel(trace.Name(k))) {
        c.tensor_core = true;
        first_kernel[found->second] = k.name;
      } else if (first_kernel[found->second] == UINT32_MAX) {
        first_kernel[found->second] = k.name;
      }
    }
  }
  std::set<std::string> notes;
  for (size_t c = 0; c < counted.size(); ++c) {
    const TraceEvent& op = trace.events[counted[c].event];
    auto step = std::upper_bound(result.steps.begin(), result.steps.end(), op.ts_ns,
                                 [](int64_t ts, const StepFlops& s) { return ts < s.begin_ns; });
    if (step == result.steps.begin()) continue;
    --step;
    if (op.ts_ns >= step->begin_ns + step->dur_ns) continue;  // between steps
    std::string note;
    const std::string_view kernel =
        first_kernel[c] == UINT32_MAX ? std::string_view() : trace.strings.Get(first_kernel[c]);
    const std::string precision = OpPrecision(
        op.input_type == 0 ? std::string_view() : trace.strings.Get(op.input_type), kernel, &note);
    if (!note.empty() && precision != "tf32") notes.insert(note);
    if (precision == "tf32") notes.insert("float inputs on tensor-core kernels: counted as tf32");
    step->flops[precision] += counted[c].flops;
    result.flops_by_precision[precision] += counted[c].flops;
    ++result.counted_ops;
  }
  result.precision_notes.assign(notes.begin(), notes.end());
  return result;
}

double PeakFor(const PeakFlops& peaks, const std::string& precision, std::string* used) {
  auto peak = [&](const std::string& p) {
    auto it = peaks.per_precision.find(p);
    return it == peaks.per_precision.end() ? 0.0 : it->second;
  };
  if (precision == "fp64") {
    // fp64 matrix products run on the fp64 tensor cores where a device has them: the larger peak.
    const double vector = peak("fp64"), tensor = peak("fp64_tensor");
    if (used != nullptr) *used = tensor > vector ? "fp64_tensor" : "fp64";
    return std::max(vector, tensor);
  }
  static const std::map<std::string, std::vector<std::string>> kWider = {
      {"fp32", {}},
      {"tf32", {}},
      {"bf16", {"fp16", "fp32"}},
      {"fp16", {"bf16", "fp32"}},
      {"fp8", {"fp16", "bf16", "fp32"}},
      {"int8", {"fp16", "bf16", "fp32"}},
  };
  if (const double own = peak(precision); own > 0) {
    if (used != nullptr) *used = precision;
    return own;
  }
  auto wider = kWider.find(precision);
  if (wider == kWider.end()) return 0;
  for (const std::string& p : wider->second) {
    if (const double other = peak(p); other > 0) {
      if (used != nullptr) *used = fmt::format("{} (no {} peak)", p, precision);
      return other;
    }
  }
  return 0;
}

}  // namespace xpuperf::trace

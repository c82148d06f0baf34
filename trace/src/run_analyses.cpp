// Analyses across ranks (stragglers) and GEMM kernels as roofline points.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis_util.h"

namespace xpuperf::trace {

Stragglers ComputeStragglers(const TraceRun& run) {
  Stragglers result;
  size_t ranks = run.ranks.size();
  std::vector<std::map<std::string, std::vector<int64_t>>> starts(ranks);
  for (size_t r = 0; r < ranks; ++r) {
    const Trace& trace = run.ranks[r];
    RankStraggle rank;
    rank.rank = trace.rank;
    internal::KernelClassCache classes(trace);
    for (const TraceEvent& e : trace.events) {
      if (e.kind != EventKind::kKernel || classes.Of(e) != KernelClass::kComm) continue;
      starts[r][std::string(trace.Name(e))].push_back(e.ts_ns);
      rank.comm_ns += e.dur_ns;
    }
    result.ranks.push_back(rank);
  }
  if (ranks < 2) return result;
  std::vector<double> lateness_sum(ranks, 0);
  for (const auto& [name, first_starts] : starts[0]) {
    size_t common = first_starts.size();
    for (size_t r = 1; r < ranks; ++r) {
      auto it = starts[r].find(name);
      common = it == starts[r].end() ? 0 : std::min(common, it->second.size());
    }
    for (size_t k = 0; k < common; ++k) {
      int64_t earliest = INT64_MAX, latest = INT64_MIN;
      size_t last_rank = 0;
      for (size_t r = 0; r < ranks; ++r) {
        int64_t ts = starts[r].at(name)[k];
        earliest = std::min(earliest, ts);
        if (ts > latest) {
          latest = ts;
          last_rank = r;
        }
      }
      ++result.collectives;
      ++result.ranks[last_rank].last_count;
      for (size_t r = 0; r < ranks; ++r) {
        ++result.ranks[r].collectives;
        lateness_sum[r] += static_cast<double>(starts[r].at(name)[k] - earliest);
      }
    }
  }
  for (size_t r = 0; r < ranks; ++r) {
    if (result.ranks[r].collectives > 0) {
      result.ranks[r].mean_lateness_ns =
          lateness_sum[r] / static_cast<double>(result.ranks[r].collectives);
    }
  }
  return result;
}

namespace internal {

// -1 when a dimension is unknown or the product leaves the exact range of a double.
int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < dims.size(); ++i) {
    if (dims[i] < 0) return -1;
    p *= static_cast<double>(dims[i]);
  }
  return p > 9e15 ? -1 : static_cast<int64_t>(p);
}

// M, N, K and batch from the op's input shapes; false when they do not describe a product.
bool GemmShape(std::string_view op, const std::vector<std::vector<int64_t>>& in, GemmPoint* p) {
  auto two = [](const std::vector<int64_t>& s) { return s.size() == 2; };
  auto three = [](const std::vector<int64_t>& s) { return s.size() == 3; };
  if (op == "aten::mm" && in.size() >= 2 && two(in[0]) && two(in[1])) {
    p->m = in[0][0], p->k = in[0][1], p->n = in[1][1];
  } else if (op == "aten::addmm" && in.size() >= 3 && two(in[1]) && two(in[2])) {
    p->m = in[1][0], p->k = in[1][1], p->n = in[2][1];
  } else if (op == "aten::bmm" && in.size() >= 2 && three(in[0]) && three(in[1])) {
    p->batch = in[0][0], p->m = in[0][1], p->k = in[0][2], p->n = in[1][2];
  } else if ((op == "aten::baddbmm" || op == "aten::addbmm") && in.size() >= 3 && three(in[1]) &&
             three(in[2])) {
    p->batch = in[1][0], p->m = in[1][1], p->k = in[1][2], p->n = in[2][2];
  } else if (op == "aten::linear" && in.size() >= 2 && !in[0].empty() && two(in[1])) {
    p->m = Product(in[0], 0, in[0].size() - 1), p->k = in[0].back(), p->n = in[1][0];
  } else if (op == "aten::matmul" && in.size() >= 2 && in[0].size() >= 2 && in[1].size() >= 2) {
    const auto& a = in[0];
    const auto& b = in[1];
    p->m = a[a.size() - 2], p->k = a.back(), p->n = b.back();
    p->batch = Product(a, 0, a.size() - 2);
  } else {
    return false;
  }
  return p->m > 0 && p->n > 0 && p->k > 0 && p->batch > 0;
}

}  // namespace internal

namespace {

int ElementSize(std::string_view type) {
  if (type.find("Half") != std::string_view::npos ||
      type.find("BFloat16") != std::string_view::npos || type == "half" || type == "bfloat16") {
    return 2;
  }
  if (type == "double" || type.find("Double") != std::string_view::npos) return 8;
  if (type.find("Float8") != std::string_view::npos ||
      type.find("int8") != std::string_view::npos || type == "signed char") {
    return 1;
  }
  return 4;
}

// Per call flops and bytes of a shape; 0 calls and time.
void CountShape(GemmPoint& p) {
  const int size = ElementSize(p.dtype);
  p.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) *
            static_cast<double>(p.batch);
  p.bytes = (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n +
             static_cast<double>(p.m) * p.n) *
            static_cast<double>(p.batch) * size;
}

// GEMM points keyed by (op, dtype, M, N, K, batch): calls with the same op, dtype and shape are
// one point.
class GemmPointTable {
 public:
  // Adds one call of `op` taking time_ns; false when its shapes describe no product.
  bool Add(const Trace& trace, const TraceEvent& op, uint32_t kernel, int64_t time_ns,
           bool on_cpu) {
    GemmPoint shape;
    if (!internal::GemmShape(trace.Name(op), trace.InputDims(op), &shape)) return false;
    auto [it, inserted] = points_.try_emplace(
        std::make_tuple(op.name, op.input_type, shape.m, shape.n, shape.k, shape.batch), shape);
    GemmPoint& p = it->second;
    if (inserted) {
      p.op = std::string(trace.Name(op));
      if (!on_cpu) p.kernel = std::string(trace.strings.Get(kernel));
      p.dtype = std::string(trace.strings.Get(op.input_type));
      p.on_cpu = on_cpu;
      CountShape(p);
    }
    ++p.calls;
    p.time_ns += time_ns;
    return true;
  }

  // The points with time, largest time first.
  std::vector<GemmPoint> Sorted() {
    std::vector<GemmPoint> result;
    result.reserve(points_.size());
    for (auto& [key, p] : points_) {
      if (p.time_ns > 0) result.push_back(std::move(p));
    }
    std::stable_sort(result.begin(), result.end(),
                     [](const GemmPoint& a, const GemmPoint& b) { return a.time_ns > b.time_ns; });
    return result;
  }

 private:
  std::map<std::tuple<uint32_t, uint32_t, int64_t, int64_t, int64_t, int64_t>, GemmPoint> points_;
};

// A CPU run: the outermost GEMM op of each thread with its Input Dims, timed by its duration.
std::vector<GemmPoint> CpuGemmPoints(const Trace& trace) {
  std::vector<uint32_t> ops;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.kind == EventKind::kCpuOp && e.input_dims >= 0 && e.dur_ns > 0 &&
        IsGemmOpName(trace.Name(e))) {
      ops.push_back(i);
    }
  }
  std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
    const TraceEvent& x = trace.events[a];
    const TraceEvent& y = trace.events[b];
    return std::tie(x.pid, x.tid, x.ts_ns) < std::tie(y.pid, y.tid, y.ts_ns);
  });
  GemmPointTable points;
  int64_t open_end = -1;
  std::pair<int32_t, int32_t> open_thread{0, 0};
  for (uint32_t index : ops) {
    const TraceEvent& op = trace.events[index];
    const std::pair<int32_t, int32_t> thread{op.pid, op.tid};
    if (thread == open_thread && op.ts_ns < open_end) continue;  // inside an outer GEMM op
    // An op whose shapes describe no product (a 1-D matmul) does not hide the GEMM inside it.
    if (points.Add(trace, op, 0, op.dur_ns, /*on_cpu=*/true)) {
      open_thread = thread;
      open_end = op.end_ns();
    }
  }
  return points.Sorted();
}

}  // namespace

bool IsGemmOpName(std::string_view name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" ||
         name == "aten::baddbmm" || name == "aten::addbmm" || name == "aten::linear" ||
         name == "aten::matmul";
}

std::vector<GemmPoint> ComputeGemmPoints(const Trace& trace) {
  const bool any_kernel = std::any_of(trace.events.begin(), trace.events.end(),
                                      [](const auto& e) { return e.kind == EventKind::kKernel; });
  if (!any_kernel) return CpuGemmPoints(trace);
  // GEMM cpu_ops with dims by External id (the first in start order for each id), sorted: a
  // binary search per kernel instead of hash-map nodes, which dominated this analysis.
  struct Op {
    int64_t external_id;
    uint32_t event;
  };
  std::vector<Op> ops;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    if (e.kind == EventKind::kCpuOp && e.input_dims >= 0 && e.external_id >= 0 &&
        IsGemmOpName(trace.Name(e))) {
      ops.push_back({e.external_id, i});
    }
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const Op& a, const Op& b) { return a.external_id < b.external_id; });
  ops.erase(std::unique(ops.begin(), ops.end(),
                        [](const Op& a, const Op& b) { return a.external_id == b.external_id; }),
            ops.end());
  // Kernel time per op call, in the order the calls' first kernels appear.
  std::vector<int64_t> call_of_op(ops.size(), -1);  // by position in ops -> calls index
  struct Call {
    uint32_t op = 0;
    uint32_t kernel = 0;  // name id of the call's first kernel
    int64_t time_ns = 0;
  };
  std::vector<Call> calls;
  for (const TraceEvent& k : trace.events) {
    if (k.kind != EventKind::kKernel || k.external_id < 0 || ops.empty()) continue;
    auto found = std::lower_bound(
        ops.begin(), ops.end(), k.external_id,
        [](const Op& op, int64_t external_id) { return op.external_id < external_id; });
    if (found == ops.end() || found->external_id != k.external_id) continue;
    int64_t& call = call_of_op[static_cast<size_t>(found - ops.begin())];
    if (call < 0) {
      call = static_cast<int64_t>(calls.size());
      calls.push_back({found->event, k.name, 0});
    }
    calls[static_cast<size_t>(call)].time_ns += k.dur_ns;
  }
  GemmPointTable points;
  for (const Call& call : calls) {
    points.Add(trace, trace.events[call.op], call.kernel, call.time_ns, /*on_cpu=*/false);
  }
  return points.Sorted();
}

}  // namespace xpuperf::trace

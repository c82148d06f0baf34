#include "xpuperf/roofline/trace_points.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "xpuperf/trace/model_flops.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::roofline {
namespace {

std::string Dims(const trace::GemmPoint& g) {
  std::string dims = fmt::format("{}x{}x{}", g.m, g.n, g.k);
  return g.batch > 1 ? fmt::format("b{} {}", g.batch, dims) : dims;
}

}  // namespace

std::string RooflineDtype(std::string_view type, std::string_view kernel, std::string* note) {
  std::string precision_note;
  std::string dtype = trace::OpPrecision(type, kernel, &precision_note);
  if (note != nullptr && !precision_note.empty()) {
    // The roofline also counts bytes: say what an unknown type was taken to weigh.
    *note = dtype == "tf32" || type == "float" ? precision_note
                                               : precision_note + " (4 bytes per element)";
  }
  return dtype;
}

WorkloadPoint GemmWorkloadPoint(const trace::GemmPoint& g) {
  std::string note;
  const std::string dtype = RooflineDtype(g.dtype, g.kernel, &note);
  const double calls = static_cast<double>(g.calls);
  WorkloadPoint p;
  p.name =
      fmt::format("{} {} {} (×{} call{})", g.op, Dims(g), dtype, g.calls, g.calls == 1 ? "" : "s");
  p.op = "gemm";
  p.dtype = dtype;
  p.flops = g.flops * calls;
  p.bytes = g.bytes * calls;
  p.time_seconds = static_cast<double>(g.time_ns) * 1e-9;
  if (g.on_cpu) {
    p.formula = fmt::format(
        "CPU trace: {} calls x (FLOP = 2 x batch x M x N x K = 2 x {} x {} x {} x {}; bytes = "
        "batch x (MK + KN + MN) x element size, Input type '{}'); time = the outermost GEMM ops' "
        "own durations summed",
        g.calls, g.batch, g.m, g.n, g.k, g.dtype);
    if (!note.empty()) p.formula += "; " + note;
    return p;
  }
  p.formula = fmt::format(
      "trace: {} calls x (FLOP = 2 x batch x M x N x K = 2 x {} x {} x {} x {}; bytes = batch x "
      "(MK + KN + MN) x element size, Input type '{}'); time = the calls' kernels summed "
      "(first kernel {})",
      g.calls, g.batch, g.m, g.n, g.k, g.dtype, g.kernel);
  if (!note.empty()) p.formula += "; " + note;
  return p;
}

std::string TraceDeviceName(const trace::Trace& trace, std::string* why) {
  std::set<std::string> names;
  for (const trace::DeviceProperties& d : trace.devices) {
    if (!d.name.empty()) names.insert(d.name);
  }
  if (names.empty()) {
    if (why != nullptr) *why = "the trace has no deviceProperties naming a GPU";
    return "";
  }
  if (names.size() == 1) return *names.begin();
  // Devices of different models: the one most kernels ran on.
  std::map<int32_t, int64_t> kernels;
  for (const trace::TraceEvent& e : trace.events) {
    if (e.kind == trace::EventKind::kKernel && e.device >= 0) ++kernels[e.device];
  }
  const auto busiest =
      std::max_element(kernels.begin(), kernels.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (busiest != kernels.end()) {
    for (const trace::DeviceProperties& d : trace.devices) {
      if (d.id == busiest->first && !d.name.empty()) return d.name;
    }
  }
  if (why != nullptr) {
    *why =
        fmt::format("deviceProperties lists {} different GPU models and no kernel names its device",
                    names.size());
  }
  return "";
}

Result<TracePoints> LoadTracePoints(const std::string& path, int top) {
  XPUPERF_ASSIGN_OR_RETURN(trace::TraceRun run, trace::ReadTraceRun(path));
  TracePoints out;
  out.path = path;
  out.ranks = static_cast<int>(run.ranks.size());
  out.top = top;
  // The device: every rank must name the same one.
  std::map<std::string, int> devices;  // name -> first rank
  std::string why;
  for (const trace::Trace& rank : run.ranks) {
    std::string rank_why;
    const std::string name = TraceDeviceName(rank, &rank_why);
    if (!name.empty()) {
      devices.try_emplace(name, rank.rank);
    } else if (why.empty()) {
      why = rank_why;
    }
  }
  if (devices.size() > 1) {
    std::string list;
    for (const auto& [name, rank] : devices) {
      list += fmt::format("{}rank {}: {}", list.empty() ? "" : ", ", rank, name);
    }
    return MakeError(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: the ranks ran on different GPU models ({}); a roofline is one "
                    "device: pass one rank's file",
                    path, list));
  }
  if (devices.size() == 1) {
    out.device = devices.begin()->first;
  } else {
    out.device_note = why;
  }

  // What the trace holds, so that a trace without points says why: GEMM ops, ones with shapes,
  // GPU kernels.
  for (const trace::Trace& rank : run.ranks) {
    for (const trace::TraceEvent& e : rank.events) {
      if (e.kind == trace::EventKind::kKernel) ++out.kernels;
      if (e.kind != trace::EventKind::kCpuOp || !trace::IsGemmOpName(rank.Name(e))) continue;
      ++out.gemm_ops;
      if (e.input_dims >= 0) ++out.gemm_ops_with_shapes;
    }
  }
  out.cpu_trace = out.kernels == 0;
  if (out.cpu_trace && out.device.empty()) {
    out.device_note = "a CPU trace (no GPU kernel): its GEMM points are CPU ops";
  }
  const trace::RunReport report = trace::AnalyzeRun(run);
  // The same GEMM on several ranks is one point: calls and kernel time add up.
  std::map<std::tuple<std::string, std::string, int64_t, int64_t, int64_t, int64_t>,
           trace::GemmPoint>
      merged;
  for (const trace::RankReport& rank : report.ranks) {
    for (const trace::GemmPoint& g : rank.gemm) {
      auto [it, inserted] =
          merged.try_emplace(std::make_tuple(g.op, g.dtype, g.m, g.n, g.k, g.batch), g);
      if (!inserted) {
        it->second.calls += g.calls;
        it->second.time_ns += g.time_ns;
      }
    }
    out.findings.insert(out.findings.end(), rank.findings.begin(), rank.findings.end());
  }
  std::vector<trace::GemmPoint> gemm;
  gemm.reserve(merged.size());
  for (auto& [key, g] : merged) gemm.push_back(std::move(g));
  std::stable_sort(
      gemm.begin(), gemm.end(),
      [](const trace::GemmPoint& a, const trace::GemmPoint& b) { return a.time_ns > b.time_ns; });
  out.gemm_points = gemm.size();
  const size_t keep = std::min(gemm.size(), static_cast<size_t>(std::max(top, 0)));
  for (size_t i = 0; i < keep; ++i) out.points.push_back(GemmWorkloadPoint(gemm[i]));
  out.left_out = gemm.size() - keep;
  return out;
}

std::string NoGemmPointsReason(const TracePoints& tp) {
  if (tp.gemm_ops == 0) {
    return "the trace has no GEMM op (aten::mm, addmm, bmm, baddbmm, matmul, linear), so it gives "
           "no roofline point";
  }
  if (tp.gemm_ops_with_shapes == 0) {
    return fmt::format(
        "none of the trace's {} GEMM ops has recorded input shapes: profile with "
        "record_shapes=True to get roofline points",
        tp.gemm_ops);
  }
  if (tp.cpu_trace) {
    return fmt::format(
        "the trace's {} GEMM ops with shapes have no product shape the roofline "
        "reads, or no duration",
        tp.gemm_ops_with_shapes);
  }
  return fmt::format(
      "the trace's {} GEMM ops with shapes have no GPU kernel joined to them by External id "
      "(the trace has {} kernels), so their time is unknown",
      tp.gemm_ops_with_shapes, tp.kernels);
}

}  // namespace xpuperf::roofline

// Trace runs from Python: read (GIL released), optionally in HTA's convention, then the analyses
// and the events of a rank as NumPy columns, from which xpuperf/hta.py builds HTA's DataFrames.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bindings.h"
#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/hta_convention.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::python {

namespace {

using trace::Trace;
using trace::TraceEvent;

// A NumPy array that owns a copy of `values`.
template <typename T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> Column(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner);
}

// The ranks of one run, read once; immutable afterwards, so the analyses may run without the GIL.
class PyTraceRun {
 public:
  // include_last_profiler_step: HTA's option of the same name (hta convention only).
  PyTraceRun(const std::string& path, const std::string& convention,
             bool include_last_profiler_step) {
    if (convention != "hta" && convention != "xpuperf") {
      Raise(MakeError(ErrorCode::kInvalidArgument,
                      "convention must be 'hta' or 'xpuperf', got '" + convention + "'"));
    }
    Result<trace::TraceRun> read = [&] {
      nb::gil_scoped_release release;
      return trace::ReadTraceRun(path);
    }();
    run_ = Unwrap(std::move(read));
    for (const Trace& t : run_.ranks) float_times_.push_back(HtaReadsFloatTimes(t));
    if (convention == "hta") {
      nb::gil_scoped_release release;
      profiler_step_names_ =
          trace::ApplyHtaConvention(run_, include_last_profiler_step ? trace::HtaLastStep::kInclude
                                                                     : trace::HtaLastStep::kDrop);
      dropped_last_step_ = profiler_step_names_ >= 2;  // the frame was filtered and reordered
    }
  }

  PyTraceRun(const PyTraceRun&) = delete;
  PyTraceRun& operator=(const PyTraceRun&) = delete;

  size_t Size() const { return run_.ranks.size(); }

  nb::dict Info(size_t index) const {
    const Trace& t = At(index);
    nb::dict out;
    out["source"] = t.source;
    out["rank"] = t.rank;
    out["world_size"] = t.world_size;
    out["backend"] = t.backend;
    out["has_distributed_info"] = t.has_distributed_info;
    out["events"] = t.events.size();
    out["fractional_timestamps"] = t.fractional_timestamps;
    out["base_time_ns"] = t.base_time_ns;
    out["hta_float_times"] = float_times_[index];
    out["hta_first_ts_ns"] = t.hta_first_ts_ns;
    out["elements_without_ts"] = t.elements_without_ts;
    out["string_pids"] = t.string_pids;
    out["string_tids"] = t.string_tids;
    // HTA's integer columns' ranges before its drop of the last step: (min, max) or None.
    const std::pair<const char*, const Trace::HtaRange*> ranges[] = {
        {"ts", &t.hta_ts_us},
        {"dur", &t.hta_dur_us},
        {"stream", &t.hta_stream},
        {"correlation", &t.hta_correlation},
        {"index", &t.hta_file_index},
        {"pid", &t.hta_pid},
        {"tid", &t.hta_tid},
        {"bytes", &t.hta_bytes},
        {"external_id", &t.hta_external_id},
        {"index_correlation", &t.hta_index_correlation},
        {"wait_on_stream", &t.hta_wait_on_stream},
        {"wait_on_cuda_event_record_corr_id", &t.hta_wait_on_event},
        {"iteration", &t.hta_iteration}};
    nb::dict hta_ranges;
    for (const auto& [column, range] : ranges) {
      if (range->min > range->max) {
        hta_ranges[column] = nb::none();
      } else {
        hta_ranges[column] = nb::make_tuple(range->min, range->max);
      }
    }
    out["hta_ranges"] = hta_ranges;
    out["hta_iteration_nan"] = t.hta_iteration_nan;
    // HTA's local symbol table's input: the distinct categories, then names, in file order.
    auto texts = [&t](const std::vector<uint32_t>& ids) {
      nb::list list;
      for (uint32_t id : ids) {
        const std::string_view s = t.strings.Get(id);
        list.append(nb::str(s.data(), s.size()));
      }
      return list;
    };
    out["hta_symbol_categories"] = texts(t.hta_symbol_categories);
    out["hta_symbol_names"] = texts(t.hta_symbol_names);
    return out;
  }

  // One dict per rank: rank, window_ns, busy_ns, compute_ns, non_compute_ns, idle_ns, gpu_ops.
  nb::list TemporalBreakdown() const {
    std::vector<trace::TemporalBreakdown> rows;
    {
      nb::gil_scoped_release release;
      for (const Trace& t : run_.ranks) rows.push_back(trace::ComputeTemporalBreakdown(t));
    }
    nb::list out;
    for (size_t i = 0; i < rows.size(); ++i) {
      const trace::TemporalBreakdown& r = rows[i];
      nb::dict row;
      row["rank"] = run_.ranks[i].rank;
      row["window_ns"] = r.window_ns;
      row["busy_ns"] = r.busy_ns;
      row["compute_ns"] = r.compute_ns;
      row["non_compute_ns"] = r.non_compute_ns;
      row["idle_ns"] = r.idle_ns;
      row["gpu_ops"] = r.gpu_ops;
      out.append(row);
    }
    return out;
  }

  // The events of one rank as columns (one entry per event, in timestamp order) and the string
  // table that `name` and `category` index.
  nb::dict Events(size_t index) const {
    const Trace& t = At(index);
    const size_t n = t.events.size();
    std::vector<int64_t> ts(n), dur(n), correlation(n), external_id(n), bytes(n);
    std::vector<int32_t> pid(n), tid(n), device(n), stream(n);
    std::vector<uint32_t> name(n), category(n), file_index(n);
    std::vector<int32_t> index_correlation(n);
    std::vector<uint8_t> kind(n), flags(n);
    // HTA's iteration (kHtaNoIteration where NaN) and wait_on_* columns (-1 where absent).
    std::vector<int32_t> iteration(n, trace::kHtaNoIteration), wait_on_stream(n, -1);
    std::vector<int64_t> wait_on_event(n, -1);
    {
      nb::gil_scoped_release release;
      std::unordered_map<uint32_t, const Trace::EventWait*> waits;
      for (const Trace::EventWait& w : t.event_waits) waits[w.file_index] = &w;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t at = t.events[i].file_index;
        if (at < t.hta_iterations.size()) iteration[i] = t.hta_iterations[at];
        if (auto w = waits.find(at); w != waits.end()) {
          wait_on_stream[i] = w->second->stream;
          wait_on_event[i] = w->second->record_correlation;
        }
      }
      for (size_t i = 0; i < n; ++i) {
        const TraceEvent& e = t.events[i];
        ts[i] = e.ts_ns;
        dur[i] = e.dur_ns;
        correlation[i] = e.correlation;
        external_id[i] = e.external_id;
        bytes[i] = e.bytes;
        pid[i] = e.pid;
        tid[i] = e.tid;
        device[i] = e.device;
        stream[i] = e.stream;
        name[i] = e.name;
        category[i] = e.category;
        kind[i] = static_cast<uint8_t>(e.kind);
        flags[i] = e.hta_flags;
        file_index[i] = e.file_index;
        index_correlation[i] = e.hta_index_correlation;
      }
    }
    nb::list strings;
    for (size_t i = 0; i < t.strings.size(); ++i) {
      const std::string_view s = t.strings.Get(static_cast<uint32_t>(i));
      strings.append(nb::str(s.data(), s.size()));
    }
    nb::dict out;
    out["ts_ns"] = Column(std::move(ts));
    out["dur_ns"] = Column(std::move(dur));
    out["correlation"] = Column(std::move(correlation));
    out["external_id"] = Column(std::move(external_id));
    out["bytes"] = Column(std::move(bytes));
    out["pid"] = Column(std::move(pid));
    out["tid"] = Column(std::move(tid));
    out["device"] = Column(std::move(device));
    out["stream"] = Column(std::move(stream));
    out["name"] = Column(std::move(name));
    out["category"] = Column(std::move(category));
    out["kind"] = Column(std::move(kind));
    out["hta_flags"] = Column(std::move(flags));
    out["file_index"] = Column(std::move(file_index));
    out["hta_index_correlation"] = Column(std::move(index_correlation));
    out["hta_iteration"] = Column(std::move(iteration));
    out["wait_on_stream"] = Column(std::move(wait_on_stream));
    out["wait_on_cuda_event_record_corr_id"] = Column(std::move(wait_on_event));
    out["strings"] = strings;
    // HTA's memory_bw_gbps: (file_index, GB/s) of the events that give it.
    std::vector<uint32_t> bandwidth_index;
    std::vector<double> bandwidth;
    for (const auto& [position, gbps] : t.memory_bandwidth_gbps) {
      bandwidth_index.push_back(position);
      bandwidth.push_back(gbps);
    }
    out["bandwidth_file_index"] = Column(std::move(bandwidth_index));
    out["bandwidth_gbps"] = Column(std::move(bandwidth));
    return out;
  }

  int profiler_step_names() const { return profiler_step_names_; }
  // Whether the last ProfilerStep was dropped: HTA's frame of each rank is then its kept GPU
  // kernels (labelled 0..k-1, from its merge) followed by the kept CPU events.
  bool dropped_last_step() const { return dropped_last_step_; }

 private:
  const Trace& At(size_t index) const {
    if (index >= run_.ranks.size()) {
      Raise(MakeError(ErrorCode::kInvalidArgument,
                      "rank index " + std::to_string(index) + " out of range (" +
                          std::to_string(run_.ranks.size()) + " ranks)"));
    }
    return run_.ranks[index];
  }

  // Whether HTA's frame of a rank holds ts/dur as float64 rather than int64: pandas makes a column
  // float when any event of traceEvents lacks the field (NaN), before HTA drops those rows. Known
  // from what the reader saw: metadata (M), flows (s/f), instants and [memory] events, events
  // without ts. (Counter and async events, which the reader does not count, are not seen.)
  static bool HtaReadsFloatTimes(const Trace& t) {
    if (t.metadata_events > 0 || t.flow_events > 0 || t.skipped_events > 0 || !t.memory.empty())
      return true;
    for (const TraceEvent& e : t.events) {
      if (e.hta_flags & trace::kHtaNoDuration) return true;
    }
    return false;
  }

  trace::TraceRun run_;
  std::vector<bool> float_times_;
  int profiler_step_names_ = 0;
  bool dropped_last_step_ = false;
};

}  // namespace

void BindTrace(nb::module_& m) {
  nb::class_<PyTraceRun>(m, "TraceRun", "The ranks of a trace file or directory.")
      .def(nb::init<const std::string&, const std::string&, bool>(), nb::arg("path"),
           nb::arg("convention"), nb::arg("include_last_profiler_step") = false)
      .def("__len__", &PyTraceRun::Size)
      .def("info", &PyTraceRun::Info, nb::arg("index"))
      .def("temporal_breakdown", &PyTraceRun::TemporalBreakdown)
      .def("events", &PyTraceRun::Events, nb::arg("index"))
      .def_prop_ro("profiler_step_names", &PyTraceRun::profiler_step_names)
      .def_prop_ro("dropped_last_step", &PyTraceRun::dropped_last_step);
  m.def(
      "hta_kernel_types",
      [](const std::vector<std::string>& names) {
        std::vector<std::string> out;
        out.reserve(names.size());
        for (const std::string& name : names) {
          switch (trace::HtaKernelTypeOf(name)) {
            case trace::HtaKernelType::kComputation:
              out.emplace_back("COMPUTATION");
              break;
            case trace::HtaKernelType::kCommunication:
              out.emplace_back("COMMUNICATION");
              break;
            case trace::HtaKernelType::kMemory:
              out.emplace_back("MEMORY");
              break;
            case trace::HtaKernelType::kOther:
              out.emplace_back("OTHER");
              break;
          }
        }
        return out;
      },
      nb::arg("names"),
      "HTA's kernel type of each name (COMPUTATION, COMMUNICATION, MEMORY, OTHER).");
  nb::enum_<trace::EventKind>(m, "EventKind")
      .value("OTHER", trace::EventKind::kOther)
      .value("CPU_OP", trace::EventKind::kCpuOp)
      .value("USER_ANNOTATION", trace::EventKind::kUserAnnotation)
      .value("GPU_USER_ANNOTATION", trace::EventKind::kGpuUserAnnotation)
      .value("KERNEL", trace::EventKind::kKernel)
      .value("MEMCPY", trace::EventKind::kMemcpy)
      .value("MEMSET", trace::EventKind::kMemset)
      .value("RUNTIME", trace::EventKind::kRuntime)
      .value("DRIVER", trace::EventKind::kDriver)
      .value("SYNC", trace::EventKind::kSync)
      .value("PYTHON_FUNCTION", trace::EventKind::kPythonFunction)
      .value("MEMORY", trace::EventKind::kMemory)
      .value("FLOW", trace::EventKind::kFlow);
}

}  // namespace xpuperf::python

// The tracer and the in-process recorder from Python. A Python range (xpuperf.scope) records on
// a Site interned by name, so it costs what a static-name C++ scope costs plus the interpreter's
// call overhead (docs/PERFORMANCE.md). The hot calls (scope enter/exit,
// counters, record_op) keep the GIL: each is a clock read and a buffer write that never blocks,
// cheaper than releasing and retaking the GIL. Start, Stop and Flush, which do I/O, release it.
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bindings.h"
#include "xpuperf/core/recorder.h"
#include "xpuperf/tracer/detail/hot_path.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::python {

namespace {

// Sites by (category, name), created on first use and kept for the life of the process: the
// tracer refers to a Site by address from every event recorded on it. Thread-safe.
class SiteRegistry {
 public:
  static SiteRegistry& Instance() {
    static SiteRegistry* registry = new SiteRegistry();  // never destroyed: events point here
    return *registry;
  }

  const tracer::Site& Get(std::string_view name, std::string_view category) {
    std::string key;
    key.reserve(category.size() + 1 + name.size());
    key.append(category).append(1, '\0').append(name);
    std::lock_guard lock(mutex_);
    auto it = sites_.find(key);
    if (it != sites_.end()) return *it->second;
    const std::string& stored_name = strings_.emplace_back(name);
    const char* stored_category = nullptr;
    if (!category.empty()) stored_category = strings_.emplace_back(category).c_str();
    auto site = std::make_unique<tracer::Site>(stored_name.c_str(), stored_category);
    const tracer::Site& ref = *site;
    sites_.emplace(std::move(key), std::move(site));
    return ref;
  }

 private:
  std::mutex mutex_;
  std::deque<std::string> strings_;  // deque: stable addresses
  std::unordered_map<std::string, std::unique_ptr<tracer::Site>> sites_;
};

// `with xpuperf.scope("name"):` — one complete event from __enter__ to __exit__. One object per
// site (xpuperf/tracing.py caches them by name), so it must be reentrant and usable from several
// threads at once: the open ranges live on a per-thread stack, not in the object. What End() does
// is what tracer::Scope's destructor does (tracer/detail/hot_path.h), split across two calls.
class PyRange {
 public:
  PyRange(std::string_view name, std::string_view category)
      : site_(&SiteRegistry::Instance().Get(name, category)) {}

  // May throw std::bad_alloc (the stack grows), which nanobind raises as MemoryError.
  void Enter() {
    const uint32_t state = tracer::detail::g_state.load(std::memory_order_relaxed);
    open_.push_back({state, state != 0 ? tracer::detail::NowTicks() : 0});
  }

  void Exit() noexcept {
    if (open_.empty()) return;  // __exit__ without __enter__ on this thread
    const Open range = open_.back();
    open_.pop_back();
    // A range opened before Start or in an earlier session is not written (as tracer::Scope).
    if (range.state == 0 || range.state != tracer::detail::g_state.load(std::memory_order_relaxed))
      return;
    const uint64_t end = tracer::detail::NowTicks();
    tracer::detail::Append(range.state, range.begin, end, site_,
                           tracer::detail::EventKind::kComplete);
    if (range.state & tracer::detail::kRecordOpsBit) {
      tracer::detail::RecordOpDuration(site_, end - range.begin);
    }
  }

  const char* name() const { return site_->name; }

 private:
  struct Open {
    uint32_t state;
    uint64_t begin;
  };
  // Ranges open on this thread, innermost last (of every PyRange: with-blocks nest).
  static thread_local std::vector<Open> open_;
  const tracer::Site* site_;
};

thread_local std::vector<PyRange::Open> PyRange::open_;

void Start(const std::string& path, const std::string& process_name, bool record_ops,
           const std::string& device) {
  tracer::Options options;
  options.path = path;
  options.process_name = process_name;
  options.record_op_distribution = record_ops;
  options.device = device;
  Status status = [&] {
    nb::gil_scoped_release release;
    return tracer::Start(options);
  }();
  Check(status);
}

nb::dict Stop() {
  Result<tracer::Summary> summary = [] {
    nb::gil_scoped_release release;
    return tracer::Stop();
  }();
  tracer::Summary s = Unwrap(std::move(summary));
  nb::dict out;
  out["path"] = s.path;
  out["events_written"] = s.events_written;
  out["dropped_events"] = s.dropped_events;
  return out;
}

void Flush() {
  Status status = [] {
    nb::gil_scoped_release release;
    return tracer::Flush();
  }();
  Check(status);
}

int64_t SecondsToNs(double seconds) {
  if (!(seconds >= 0) || seconds > 9.2e9) {
    Raise(MakeError(
        ErrorCode::kInvalidArgument,
        "duration must be a number of seconds >= 0 and <= 9.2e9, got " + std::to_string(seconds)));
  }
  return std::llround(seconds * 1e9);
}

}  // namespace

void BindTracer(nb::module_& m) {
  nb::class_<PyRange>(m, "Range", "A traced range of one name: `with range:` records it.")
      .def(nb::init<std::string_view, std::string_view>(), nb::arg("name"),
           nb::arg("category") = "")
      .def("__enter__",
           [](nb::handle self) {
             nb::inst_ptr<PyRange>(self)->Enter();
             return nb::borrow(self);
           })
      .def(
          "__exit__",
          [](PyRange& self, nb::handle, nb::handle, nb::handle) {
            self.Exit();
            return false;
          },
          nb::arg("exc_type").none(), nb::arg("exc").none(), nb::arg("traceback").none())
      .def_prop_ro("name", &PyRange::name);
  m.def("trace_start", &Start, nb::arg("path"), nb::arg("process_name"), nb::arg("record_ops"),
        nb::arg("device"));
  m.def("trace_stop", &Stop);
  m.def("trace_flush", &Flush);
  m.def("trace_enabled", [] { return tracer::Enabled(); });
  m.def("set_thread_name", [](std::string_view name) { tracer::SetThreadName(name); });
  m.def(
      "counter",
      [](std::string_view name, double value) {
        tracer::Counter(SiteRegistry::Instance().Get(name, ""), value);
      },
      nb::arg("name"), nb::arg("value"));
  m.def(
      "instant",
      [](std::string_view name, std::string_view category) {
        tracer::Instant(SiteRegistry::Instance().Get(name, category));
      },
      nb::arg("name"), nb::arg("category") = "");
  m.def(
      "record_op",
      [](std::string_view op, double seconds, std::string_view device) {
        Recorder::Global().RecordOp(op, SecondsToNs(seconds), device);
      },
      nb::arg("op"), nb::arg("seconds"), nb::arg("device"));
  m.def(
      "record_transfer",
      [](uint64_t bytes, double seconds, std::string_view device) {
        Recorder::Global().RecordTransfer(bytes, SecondsToNs(seconds), device);
      },
      nb::arg("bytes"), nb::arg("seconds"), nb::arg("device"));
  m.def(
      "set_queue_depth",
      [](int64_t depth, std::string_view device) {
        Recorder::Global().SetQueueDepth(depth, device);
      },
      nb::arg("depth"), nb::arg("device"));
}

}  // namespace xpuperf::python

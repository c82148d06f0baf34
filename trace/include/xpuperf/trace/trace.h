// The in-memory form of a profiler trace: compact events with interned names, nanosecond integer
// timestamps and only the arguments the analyses use. One Trace per rank (per file); a TraceRun is
// the set of ranks of one distributed run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xpuperf::trace {

// Interns strings: each distinct string is stored once in an arena and named by a dense id.
// Id 0 is the empty string. Views returned stay valid for the table's lifetime. Not thread-safe.
class StringTable {
 public:
  StringTable();
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  uint32_t Intern(std::string_view text);
  // The id of `text` if it was interned, else -1.
  int64_t Find(std::string_view text) const;
  std::string_view Get(uint32_t id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, uint32_t> ids_;
};

// What an event is, from its category (current and 2021 Kineto names, vendor variants).
enum class EventKind : uint8_t {
  kOther,
  kCpuOp,              // cpu_op, Operator
  kUserAnnotation,     // user_annotation (ProfilerStep#N, record_function ranges)
  kGpuUserAnnotation,  // gpu_user_annotation
  kKernel,             // kernel, Kernel, mtia_/xpu_/privateuse1_ kernels
  kMemcpy,             // gpu_memcpy, Memcpy
  kMemset,             // gpu_memset, Memset
  kRuntime,            // cuda_runtime, Runtime (launch calls live here)
  kDriver,             // cuda_driver
  kSync,               // cuda_sync
  kPythonFunction,     // python_function
  kMemory,             // [memory] instant events (see MemorySample)
  kFlow,               // s/f flow ends (not stored; counted)
};

std::string_view EventKindName(EventKind kind);
inline bool IsGpuOp(EventKind kind) {
  return kind == EventKind::kKernel || kind == EventKind::kMemcpy || kind == EventKind::kMemset;
}

// How the analyses read a trace: xpuperf's own definitions, or HTA's (hta_convention.h).
enum class Convention : uint8_t { kXpuperf, kHta };

// What XLA says about one HLO op (from the stats of an .xplane.pb), by the op's name.
struct XlaOpInfo {
  uint32_t category = 0;  // string id of hlo_category ("convolution", "loop fusion"...), 0 if none
  uint32_t module = 0;    // string id of the HLO module's name, 0 if none
  int64_t flops = -1;     // per execution (XLA's cost analysis), -1 if unknown
  int64_t bytes_accessed = -1;  // per execution, -1 if unknown
};

// A name the trace gives a process (tid == kProcessTrack) or a thread.
struct TrackName {
  static constexpr int32_t kProcessTrack = INT32_MIN;
  int32_t pid = 0;
  int32_t tid = kProcessTrack;
  uint32_t name = 0;  // string id
};

// Event categories the .xplane.pb reader gives XLA's timelines (docs/TRACES.md, "XLA profiles").
inline constexpr std::string_view kXlaOpsCategory = "XLA Ops";
inline constexpr std::string_view kXlaModulesCategory = "XLA Modules";
inline constexpr std::string_view kXlaStepsCategory = "Steps";

// TraceEvent::hta_flags: what HTA's reader would see differently (hta_convention.h).
enum HtaFlags : uint8_t {
  kHtaNoCategory = 1,        // no `cat` (HTA drops the row)
  kHtaNoDuration = 2,        // no `dur` (instants, B/E pairs: HTA drops the row)
  kHtaStreamNotInteger = 4,  // args.stream a string Python's int() rejects ("0x0"): HTA reads -1
  // 8 is kHtaStreamWide (hta_convention.h).
  kHtaStringPid = 16,  // pid given as a string: TraceEvent::pid is then -(1 + its string id)
  kHtaStringTid = 32,  // same for tid (a negative integer tid stays as it is)
};

// One `X` (complete) or `i` (instant) event. 88 bytes; ids index Trace::strings.
struct TraceEvent {
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;        // 0 for instants
  int64_t correlation = -1;  // args.correlation (launch call <-> GPU op)
  int64_t external_id = -1;  // args."External id" (CPU op <-> its launches and kernels)
  int64_t bytes = -1;        // memcpy/memset args.bytes
  uint32_t name = 0;
  uint32_t category = 0;
  int32_t pid = 0;  // integer pid, or -(1 + string id) when the trace gave a string
  int32_t tid = 0;  // same encoding
  int32_t device = -1;
  int32_t stream = -1;
  int32_t input_dims = -1;  // offset into Trace::dims (FLOP-counting CPU ops only), -1 if none
  uint32_t input_type = 0;  // string id of the first "Input type" (GEMM-like CPU ops), 0 if none
  uint32_t module = 0;      // string id of args."Module Hierarchy", 0 if none
  // Position of the event in the file's traceEvents array (0-based, every element counted, capped
  // at UINT32_MAX): HTA's row `index`, which its frames keep in file order (hta_convention.h).
  uint32_t file_index = 0;
  // HTA's index_correlation (set by ApplyHtaConvention, -1 otherwise): the file_index of the event
  // on the other side of the launch (the last one in file order with the same correlation), 0
  // when the event has a correlation but no partner, -1 when it has none. Capped at INT32_MAX.
  int32_t hta_index_correlation = -1;
  EventKind kind = EventKind::kOther;
  char phase = 'X';
  uint8_t hta_flags = 0;  // HtaFlags

  int64_t end_ns() const { return ts_ns + dur_ns; }
};

// A `[memory]` instant event: an allocation (bytes > 0) or a free (bytes < 0) and the allocator's
// totals after it.
struct MemorySample {
  int64_t ts_ns = 0;
  int64_t bytes = 0;
  int64_t total_allocated = -1;
  int64_t total_reserved = -1;
  int32_t device_type = -1;  // 0 CPU, 1 CUDA (c10::DeviceType)
  int32_t device_id = -1;
  int32_t pid = 0;
  int32_t tid = 0;
};

struct DeviceProperties {
  int id = -1;
  std::string name;
  int64_t total_global_mem = 0;  // bytes
  int compute_major = -1;
  int compute_minor = -1;
  int num_sms = 0;
};

enum class TraceFormat { kKineto, kKineto2021, kJax, kXPlane, kUnknown };
std::string_view TraceFormatName(TraceFormat format);

struct Trace {
  std::string source;   // file path
  int rank = 0;         // distributedInfo.rank, else from the file name, else 0
  int world_size = 0;   // 0 when unknown
  std::string backend;  // distributedInfo.backend ("nccl", "gloo"), may be empty
  bool has_distributed_info = false;
  TraceFormat format = TraceFormat::kUnknown;
  std::string display_time_unit;  // as given; never changes how ts is read (always microseconds)
  int64_t base_time_ns = 0;       // baseTimeNanoseconds (0 if absent)
  int64_t input_bytes = 0;        // size of the JSON text read (after decompression)
  int64_t flow_events = 0;        // s/f events seen (not stored: launches join by correlation)
  int64_t metadata_events = 0;    // M events seen (not stored; process/thread names read from them)
  int64_t skipped_events = 0;     // events without a usable ts (kept out of the analyses)
  int64_t elements_without_ts = 0;  // traceEvents elements with no `ts` key (flows not read)
  bool string_pids = false;         // some element (metadata included) gave its pid as a string
  bool string_tids = false;         // same for tid
  // args."memory bandwidth (GB/s)" of the events that have one (Kineto's memcpy/memset), by
  // TraceEvent::file_index, in file order: HTA's memory_bw_gbps column.
  std::vector<std::pair<uint32_t, double>> memory_bandwidth_gbps;
  // args.wait_on_stream and args.wait_on_cuda_event_record_corr_id of the CUDA sync events that
  // wait on a CUDA event (Kineto's "Stream Wait Event" and "Event Sync"), by
  // TraceEvent::file_index, in file order: the stream the event was recorded on and the
  // correlation of its cudaEventRecord call (-1 where the trace leaves one out).
  struct EventWait {
    uint32_t file_index = 0;
    int32_t stream = -1;
    int64_t record_correlation = -1;
    bool operator==(const EventWait&) const = default;
  };
  std::vector<EventWait> event_waits;
  bool fractional_timestamps = false;  // some ts written with a fraction or exponent
  Convention convention = Convention::kXpuperf;
  // Under kHta: whether the last ProfilerStep was dropped (HTA's frame then holds the kept GPU
  // kernels before the kept CPU events: HtaFrameOrder).
  bool hta_dropped_last_step = false;
  // Under kHta: the earliest ts (ns, rounded as HTA rounds) of the rows HTA keeps, before the last
  // ProfilerStep is dropped; HTA aligns a run's ranks by the smallest of these. INT64_MAX if none.
  int64_t hta_first_ts_ns = INT64_MAX;
  // Under kHta: the range of each integer column of HTA's frame over the rows it keeps, before
  // the last ProfilerStep is dropped (pandas downcasts each to the smallest integer type that
  // holds it; the dtype outlives the drop). ts and dur in whole µs; pid and tid as stored here.
  struct HtaRange {
    int64_t min = INT64_MAX, max = INT64_MIN;
    void Add(int64_t v) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  };
  HtaRange hta_ts_us, hta_dur_us, hta_stream, hta_correlation, hta_file_index, hta_pid, hta_tid;
  // Under kHta, the rest of HTA's frame (its full-frame calls, e.g. xpuperf.hta's
  // get_gpu_kernels_with_user_annotations), over the same rows before the drop: the ranges of
  // bytes, external_id, index_correlation, wait_on_stream, wait_on_cuda_event_record_corr_id and
  // iteration; whether some iteration is NaN (a row on stream 0: HTA's column is then float64);
  // each row's iteration by TraceEvent::file_index (HtaIteration); and HTA's symbols: the
  // distinct categories, then the distinct names, each in file order.
  HtaRange hta_bytes, hta_external_id, hta_index_correlation, hta_wait_on_stream, hta_wait_on_event,
      hta_iteration;
  bool hta_iteration_nan = false;
  std::vector<int32_t> hta_iterations;  // by file_index; kHtaNoIteration where NaN or no row
  std::vector<uint32_t> hta_symbol_categories, hta_symbol_names;
  std::vector<DeviceProperties> devices;
  StringTable strings;
  std::vector<TraceEvent> events;    // sorted by ts_ns
  std::vector<MemorySample> memory;  // sorted by ts_ns
  // Pool of the shapes of the FLOP-counting CPU ops (model_flops.h), per event: its Input Dims as
  // [n_inputs, len0, d.., len1, d.., ...], then its Concrete Inputs read as integer lists in the
  // same form ("[2, 2]" -> 2 2, "1" -> 1, "True" -> 1; "" or anything else -> an empty list).
  std::vector<int64_t> dims;
  // .xplane.pb only: XLA's facts per op name id, and the names of planes (processes) and lines
  // (threads) for exports.
  std::unordered_map<uint32_t, XlaOpInfo> xla_ops;
  std::vector<TrackName> track_names;

  std::string_view Name(const TraceEvent& e) const { return strings.Get(e.name); }
  std::string_view Category(const TraceEvent& e) const { return strings.Get(e.category); }
  // Input shapes of a CPU op (empty when not recorded).
  std::vector<std::vector<int64_t>> InputDims(const TraceEvent& e) const;
  // Its Concrete Inputs as integer lists (empty when not recorded; convolutions only).
  std::vector<std::vector<int64_t>> ConcreteInputs(const TraceEvent& e) const;
  // Total device memory of `device` from deviceProperties (0 when unknown).
  int64_t DeviceMemory(int device) const;
};

// All ranks of one run, ordered by rank.
struct TraceRun {
  std::vector<Trace> ranks;
};

}  // namespace xpuperf::trace

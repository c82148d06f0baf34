// Trace <-> bytes (trace_wire.h). Layout: "XPTRACE3", then the fields of Trace in declaration
// order; strings as u64 length + bytes; vectors as u64 count + elements; the POD event records
// (TraceEvent, MemorySample) copied whole.
#include "xpuperf/trace/trace_wire.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace xpuperf::trace {
namespace {

constexpr std::string_view kMagic = "XPTRACE3";  // 2: CUDA event waits; 3: HTA frame columns

static_assert(std::is_trivially_copyable_v<TraceEvent> && sizeof(TraceEvent) == 88);
static_assert(std::is_trivially_copyable_v<MemorySample>);
#if defined(__GLIBCXX__) && defined(__x86_64__)
// A field added to Trace must be added to EncodeTrace and DecodeTrace too (and then this size).
static_assert(sizeof(Trace) == 816, "Trace changed: update trace_wire.cpp");
#endif

class Writer {
 public:
  template <typename T>
  void Put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void PutString(std::string_view text) {
    Put<uint64_t>(text.size());
    out_.append(text);
  }
  template <typename T>
  void PutRecords(const std::vector<T>& records) {
    Put<uint64_t>(records.size());
    if (!records.empty()) {
      out_.append(reinterpret_cast<const char*>(records.data()), records.size() * sizeof(T));
    }
  }
  void PutRange(const Trace::HtaRange& range) {
    Put(range.min);
    Put(range.max);
  }
  std::string Take() { return std::move(out_); }
  void Reserve(size_t bytes) { out_.reserve(bytes); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  bool Get(T* value) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  // A bool is one byte 0 or 1 (any other byte is not a bool: copying it into one is undefined).
  bool Get(bool* value) {
    uint8_t byte = 2;
    if (!Get(&byte) || byte > 1) return false;
    *value = byte == 1;
    return true;
  }
  bool GetString(std::string* text) {
    std::string_view view;
    if (!GetView(&view)) return false;
    text->assign(view);
    return true;
  }
  bool GetView(std::string_view* view) {
    uint64_t size = 0;
    if (!Get(&size) || size > bytes_.size() - at_) return false;
    *view = bytes_.substr(at_, size);
    at_ += size;
    return true;
  }
  // A count of elements of `element_bytes` each that the remaining bytes can hold.
  bool GetCount(uint64_t* count, size_t element_bytes) {
    return Get(count) && *count <= (bytes_.size() - at_) / element_bytes;
  }
  template <typename T>
  bool GetRecords(std::vector<T>* records) {
    uint64_t count = 0;
    if (!GetCount(&count, sizeof(T))) return false;
    records->resize(count);
    if (count > 0) std::memcpy(records->data(), bytes_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
    return true;
  }
  bool GetRange(Trace::HtaRange* range) { return Get(&range->min) && Get(&range->max); }
  bool AtEnd() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

Error Corrupt(std::string_view what) {
  return MakeError(ErrorCode::kInvalidArgument, "trace message: " + std::string(what));
}

// Every string id an event or table holds names a string of the table.
bool IdsInRange(const Trace& t) {
  const size_t strings = t.strings.size();
  auto string_id = [&](uint32_t id) { return id < strings; };
  auto track = [&](int32_t id, bool is_string) {
    return !is_string || (id < 0 && static_cast<uint64_t>(-(int64_t{id} + 1)) < strings);
  };
  for (const TraceEvent& e : t.events) {
    if (!string_id(e.name) || !string_id(e.category) || !string_id(e.module) ||
        !string_id(e.input_type) || !track(e.pid, (e.hta_flags & kHtaStringPid) != 0) ||
        !track(e.tid, (e.hta_flags & kHtaStringTid) != 0) ||
        static_cast<uint8_t>(e.kind) > static_cast<uint8_t>(EventKind::kFlow)) {
      return false;
    }
  }
  for (const auto& [name, info] : t.xla_ops) {
    if (!string_id(name) || !string_id(info.category) || !string_id(info.module)) return false;
  }
  for (const TrackName& track_name : t.track_names) {
    if (!string_id(track_name.name)) return false;
  }
  for (const std::vector<uint32_t>* symbols : {&t.hta_symbol_categories, &t.hta_symbol_names}) {
    if (!std::all_of(symbols->begin(), symbols->end(), string_id)) return false;
  }
  return true;
}

}  // namespace

std::string EncodeTrace(const Trace& t) {
  Writer w;
  w.Reserve(256 + t.events.size() * sizeof(TraceEvent) + t.memory.size() * sizeof(MemorySample) +
            t.dims.size() * sizeof(int64_t));
  w.PutString(kMagic);
  w.PutString(t.source);
  w.Put(t.rank);
  w.Put(t.world_size);
  w.PutString(t.backend);
  w.Put(t.has_distributed_info);
  w.Put(t.format);
  w.PutString(t.display_time_unit);
  w.Put(t.base_time_ns);
  w.Put(t.input_bytes);
  w.Put(t.flow_events);
  w.Put(t.metadata_events);
  w.Put(t.skipped_events);
  w.Put(t.elements_without_ts);
  w.Put(t.string_pids);
  w.Put(t.string_tids);
  w.Put<uint64_t>(t.memory_bandwidth_gbps.size());
  for (const auto& [index, gbps] : t.memory_bandwidth_gbps) {
    w.Put(index);
    w.Put(gbps);
  }
  w.Put<uint64_t>(t.event_waits.size());
  for (const Trace::EventWait& wait : t.event_waits) {
    w.Put(wait.file_index);
    w.Put(wait.stream);
    w.Put(wait.record_correlation);
  }
  w.Put(t.fractional_timestamps);
  w.Put(t.convention);
  w.Put(t.hta_first_ts_ns);
  w.Put(t.hta_dropped_last_step);
  for (const Trace::HtaRange* range :
       {&t.hta_ts_us, &t.hta_dur_us, &t.hta_stream, &t.hta_correlation, &t.hta_file_index,
        &t.hta_pid, &t.hta_tid, &t.hta_bytes, &t.hta_external_id, &t.hta_index_correlation,
        &t.hta_wait_on_stream, &t.hta_wait_on_event, &t.hta_iteration}) {
    w.PutRange(*range);
  }
  w.Put(t.hta_iteration_nan);
  w.PutRecords(t.hta_iterations);
  w.PutRecords(t.hta_symbol_categories);
  w.PutRecords(t.hta_symbol_names);
  w.Put<uint64_t>(t.devices.size());
  for (const DeviceProperties& d : t.devices) {
    w.Put(d.id);
    w.PutString(d.name);
    w.Put(d.total_global_mem);
    w.Put(d.compute_major);
    w.Put(d.compute_minor);
    w.Put(d.num_sms);
  }
  // Id order: interning them again in this order gives every string its id back.
  w.Put<uint64_t>(t.strings.size());
  for (uint32_t id = 0; id < t.strings.size(); ++id) w.PutString(t.strings.Get(id));
  w.PutRecords(t.events);
  w.PutRecords(t.memory);
  w.PutRecords(t.dims);
  w.Put<uint64_t>(t.xla_ops.size());
  for (const auto& [name, info] : t.xla_ops) {
    w.Put(name);
    w.Put(info);
  }
  w.PutRecords(t.track_names);
  return w.Take();
}

Result<Trace> DecodeTrace(std::string_view bytes) {
  Reader r(bytes);
  Trace t;
  std::string_view magic;
  if (!r.GetView(&magic) || magic != kMagic) return Corrupt("not an encoded trace");
  bool ok = r.GetString(&t.source) && r.Get(&t.rank) && r.Get(&t.world_size) &&
            r.GetString(&t.backend) && r.Get(&t.has_distributed_info) && r.Get(&t.format) &&
            r.GetString(&t.display_time_unit) && r.Get(&t.base_time_ns) && r.Get(&t.input_bytes) &&
            r.Get(&t.flow_events) && r.Get(&t.metadata_events) && r.Get(&t.skipped_events) &&
            r.Get(&t.elements_without_ts) && r.Get(&t.string_pids) && r.Get(&t.string_tids);
  uint64_t count = 0;
  ok = ok && r.GetCount(&count, sizeof(uint32_t) + sizeof(double));
  for (uint64_t i = 0; ok && i < count; ++i) {
    std::pair<uint32_t, double> entry;
    ok = r.Get(&entry.first) && r.Get(&entry.second);
    t.memory_bandwidth_gbps.push_back(entry);
  }
  ok = ok && r.GetCount(&count, sizeof(uint32_t) + sizeof(int32_t) + sizeof(int64_t));
  for (uint64_t i = 0; ok && i < count; ++i) {
    Trace::EventWait wait;
    ok = r.Get(&wait.file_index) && r.Get(&wait.stream) && r.Get(&wait.record_correlation);
    t.event_waits.push_back(wait);
  }
  ok = ok && r.Get(&t.fractional_timestamps) && r.Get(&t.convention) && r.Get(&t.hta_first_ts_ns) &&
       r.Get(&t.hta_dropped_last_step);
  for (Trace::HtaRange* range :
       {&t.hta_ts_us, &t.hta_dur_us, &t.hta_stream, &t.hta_correlation, &t.hta_file_index,
        &t.hta_pid, &t.hta_tid, &t.hta_bytes, &t.hta_external_id, &t.hta_index_correlation,
        &t.hta_wait_on_stream, &t.hta_wait_on_event, &t.hta_iteration}) {
    ok = ok && r.GetRange(range);
  }
  ok = ok && r.Get(&t.hta_iteration_nan) && r.GetRecords(&t.hta_iterations) &&
       r.GetRecords(&t.hta_symbol_categories) && r.GetRecords(&t.hta_symbol_names);
  ok = ok && r.GetCount(&count, 4 * sizeof(int) + sizeof(int64_t) + sizeof(uint64_t));
  for (uint64_t i = 0; ok && i < count; ++i) {
    DeviceProperties d;
    ok = r.Get(&d.id) && r.GetString(&d.name) && r.Get(&d.total_global_mem) &&
         r.Get(&d.compute_major) && r.Get(&d.compute_minor) && r.Get(&d.num_sms);
    t.devices.push_back(std::move(d));
  }
  ok = ok && r.GetCount(&count, sizeof(uint64_t)) && count >= 1 && count <= UINT32_MAX;
  for (uint64_t id = 0; ok && id < count; ++id) {
    std::string_view text;
    ok = r.GetView(&text) && t.strings.Intern(text) == id;  // ids as encoded, each string once
  }
  ok = ok && r.GetRecords(&t.events) && r.GetRecords(&t.memory) && r.GetRecords(&t.dims);
  ok = ok && r.GetCount(&count, sizeof(uint32_t) + sizeof(XlaOpInfo));
  for (uint64_t i = 0; ok && i < count; ++i) {
    uint32_t name = 0;
    XlaOpInfo info;
    ok = r.Get(&name) && r.Get(&info) && t.xla_ops.emplace(name, info).second;
  }
  ok = ok && r.GetRecords(&t.track_names);
  if (!ok || !r.AtEnd()) return Corrupt("truncated or malformed");
  if (static_cast<int>(t.format) < 0 || t.format > TraceFormat::kUnknown ||
      static_cast<uint8_t>(t.convention) > static_cast<uint8_t>(Convention::kHta)) {
    return Corrupt("unknown format or convention");
  }
  if (!IdsInRange(t)) return Corrupt("a string id out of range");
  return t;
}

}  // namespace xpuperf::trace

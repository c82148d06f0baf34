// XSpace -> Trace (xplane.h states the mapping). Field numbers: tsl/profiler/protobuf/xplane.proto.
// Each plane is walked twice over the same bytes: once for its metadata maps and line names
// (serializers write lines before the maps, so names are not known on the first sight of an
// event), once for the events.
#include <sys/mman.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "event_parser.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/core/protobuf_wire.h"
#include "xpuperf/trace/xplane.h"

namespace xpuperf::trace {
namespace {

using wire::WireField;
using wire::WireReader;
using wire::WireType;

// The same bounds as the JSON reader (event_parser.cpp): sums and differences of the analyses
// stay inside int64.
constexpr int64_t kMaxTs = int64_t{1} << 62;
constexpr int64_t kMaxDur = int64_t{1} << 48;

bool IsLength(const WireField& f) { return f.type == WireType::kLengthDelimited; }
bool IsVarint(const WireField& f) { return f.type == WireType::kVarint; }

// A stat's value, whichever of the oneof it was.
struct StatValue {
  int64_t metadata_id = 0;
  enum class Kind { kNone, kInt, kDouble, kString } kind = Kind::kNone;
  int64_t integer = 0;
  double number = 0;
  std::string_view text;
  int64_t ref = -1;  // ref_value: id of the XStatMetadata whose name is the string

  // The integer value (integers, and doubles that fit), or -1.
  int64_t AsCount() const {
    if (kind == Kind::kInt) return integer >= 0 ? integer : -1;
    if (kind == Kind::kDouble && number >= 0 && number < 9.2e18)
      return static_cast<int64_t>(number);
    return -1;
  }
};

struct EventMeta {
  std::string_view name;
  std::string_view display_name;
  std::vector<std::pair<std::string_view, uint64_t>> stat_fields;  // (bytes, offset) per XStat
};

// The HLO facts of one event or metadata.
struct HloFacts {
  std::string_view hlo_op, hlo_module, hlo_category;
  int64_t flops = -1, bytes_accessed = -1, correlation = -1;
  bool step = false;  // a step_num stat: a step marker (jax.profiler.StepTraceAnnotation)
};

class XSpaceReader {
 public:
  XSpaceReader(std::string_view bytes, Trace& trace) : bytes_(bytes), trace_(trace) {}

  Status Run() {
    WireReader space(bytes_);
    WireField field;
    int ordinal = 0;
    while (space.Next(&field)) {
      if (field.number == 1 && IsLength(field)) {
        XPUPERF_RETURN_IF_ERROR(ReadPlane(field.bytes, field.offset, ordinal++));
        XPUPERF_RETURN_IF_ERROR(CheckCancelled());
      }
    }
    if (!space.status().ok()) return Malformed(space.status());
    internal::SortEventsByStart(trace_.events);
    return Status::Ok();
  }

 private:
  Error Malformed(const Status& status) const {
    return MakeError(ErrorCode::kParse,
                     trace_.source + ": malformed XSpace: " + status.error().message);
  }

  Status ReadPlane(std::string_view plane, uint64_t offset, int ordinal);
  Status ReadLine(std::string_view line, uint64_t offset, int pid, int device, bool device_plane,
                  bool plane_has_xla_ops);
  Status ReadEvent(std::string_view event, uint64_t offset, int64_t line_ts_ns, TraceEvent base,
                   bool host_plane);
  Status ReadStat(std::string_view stat, uint64_t offset, StatValue* value) const;
  Status CollectFacts(const std::vector<std::pair<std::string_view, uint64_t>>& stats,
                      HloFacts* facts) const;
  std::string_view StringOf(const StatValue& v) const {
    if (v.kind == StatValue::Kind::kString) return v.text;
    if (v.ref >= 0) {
      auto it = stat_names_.find(v.ref);
      if (it != stat_names_.end()) return it->second;
    }
    return {};
  }
  void RecordFacts(uint32_t name, const HloFacts& facts);

  std::string_view bytes_;
  Trace& trace_;
  // The plane being read.
  std::unordered_map<int64_t, std::string_view> stat_names_;
  std::unordered_map<int64_t, EventMeta> event_meta_;
  std::unordered_map<int64_t, std::optional<HloFacts>> meta_facts_;  // decoded on first use
  std::unordered_map<int64_t, uint32_t> meta_name_ids_;
};

// "/device:TPU:3" -> 3; "/device:GPU:0" -> 0; anything else (SparseCore, "#Chip") -> nullopt.
std::optional<int> DeviceOrdinal(std::string_view name) {
  for (std::string_view prefix : {"/device:TPU:", "/device:GPU:"}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::string_view digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 6) return std::nullopt;
    int value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    return value;
  }
  return std::nullopt;
}

// Reads a map<int64, M> entry: key (1) and the value message (2).
bool MapEntry(const WireField& entry, int64_t* key, WireField* value, Status* status) {
  WireReader reader(entry.bytes, entry.offset);
  WireField f;
  bool has_value = false;
  *key = 0;
  while (reader.Next(&f)) {
    if (f.number == 1 && IsVarint(f)) *key = f.AsInt64();
    if (f.number == 2 && IsLength(f)) {
      *value = f;
      has_value = true;
    }
  }
  *status = reader.status();
  if (!has_value) {
    *value = WireField{};
    value->type = WireType::kLengthDelimited;
  }
  return status->ok();
}

Status XSpaceReader::ReadStat(std::string_view stat, uint64_t offset, StatValue* value) const {
  WireReader reader(stat, offset);
  WireField f;
  *value = StatValue{};
  while (reader.Next(&f)) {
    switch (f.number) {
      case 1:
        if (IsVarint(f)) value->metadata_id = f.AsInt64();
        break;
      case 2:
        if (f.type == WireType::kFixed64) {
          value->kind = StatValue::Kind::kDouble;
          value->number = f.AsDouble();
        }
        break;
      case 3:  // uint64
        if (IsVarint(f)) {
          value->kind = StatValue::Kind::kInt;
          value->integer = f.value > uint64_t{INT64_MAX} ? -1 : static_cast<int64_t>(f.value);
        }
        break;
      case 4:  // int64
        if (IsVarint(f)) {
          value->kind = StatValue::Kind::kInt;
          value->integer = f.AsInt64();
        }
        break;
      case 5:  // str_value
      case 6:  // bytes_value
        if (IsLength(f)) {
          value->kind = StatValue::Kind::kString;
          value->text = f.bytes;
        }
        break;
      case 7:  // ref_value
        if (IsVarint(f) && f.value <= uint64_t{INT64_MAX}) value->ref = f.AsInt64();
        break;
      default:
        break;
    }
  }
  return reader.status();
}

Status XSpaceReader::CollectFacts(const std::vector<std::pair<std::string_view, uint64_t>>& stats,
                                  HloFacts* facts) const {
  for (const auto& [bytes, offset] : stats) {
    StatValue v;
    XPUPERF_RETURN_IF_ERROR(ReadStat(bytes, offset, &v));
    auto name_it = stat_names_.find(v.metadata_id);
    if (name_it == stat_names_.end()) continue;
    std::string_view name = name_it->second;
    if (name == "hlo_op") {
      facts->hlo_op = StringOf(v);
    } else if (name == "hlo_module") {
      facts->hlo_module = StringOf(v);
    } else if (name == "hlo_category") {
      facts->hlo_category = StringOf(v);
    } else if (name == "flops" || name == "model_flops") {
      if (facts->flops < 0 || name == "flops") facts->flops = v.AsCount();
    } else if (name == "bytes_accessed") {
      facts->bytes_accessed = v.AsCount();
    } else if (name == "correlation_id") {
      facts->correlation = v.AsCount();
    } else if (name == "step_num") {
      facts->step = true;
    }
  }
  return Status::Ok();
}

void XSpaceReader::RecordFacts(uint32_t name, const HloFacts& facts) {
  XlaOpInfo& info = trace_.xla_ops[name];
  if (!facts.hlo_category.empty() && info.category == 0) {
    info.category = trace_.strings.Intern(facts.hlo_category);
  }
  if (!facts.hlo_module.empty() && info.module == 0) {
    info.module = trace_.strings.Intern(facts.hlo_module);
  }
  if (facts.flops >= 0 && info.flops < 0) info.flops = facts.flops;
  if (facts.bytes_accessed >= 0 && info.bytes_accessed < 0) {
    info.bytes_accessed = facts.bytes_accessed;
  }
}

Status XSpaceReader::ReadPlane(std::string_view plane, uint64_t offset, int ordinal) {
  stat_names_.clear();
  event_meta_.clear();
  meta_facts_.clear();
  meta_name_ids_.clear();
  std::string_view name;
  bool has_xla_ops = false;
  WireReader reader(plane, offset);
  WireField f;
  Status status;
  while (reader.Next(&f)) {
    if (f.number == 2 && IsLength(f)) {
      name = f.bytes;
    } else if (f.number == 3 && IsLength(f)) {
      // Only the line's name now (field 2 of XLine).
      WireReader line(f.bytes, f.offset);
      WireField lf;
      while (line.Next(&lf)) {
        if (lf.number == 2 && IsLength(lf) && lf.bytes == kXlaOpsCategory) has_xla_ops = true;
      }
      if (!line.status().ok()) return Malformed(line.status());
    } else if ((f.number == 4 || f.number == 5) && IsLength(f)) {
      int64_t key = 0;
      WireField value;
      if (!MapEntry(f, &key, &value, &status)) return Malformed(status);
      WireReader meta(value.bytes, value.offset);
      WireField mf;
      if (f.number == 5) {  // XStatMetadata: id 1, name 2
        std::string_view stat_name;
        while (meta.Next(&mf)) {
          if (mf.number == 2 && IsLength(mf)) stat_name = mf.bytes;
        }
        stat_names_[key] = stat_name;
      } else {  // XEventMetadata: name 2, display_name 4, stats 5
        EventMeta& em = event_meta_[key];
        em = EventMeta{};
        while (meta.Next(&mf)) {
          if (mf.number == 2 && IsLength(mf)) em.name = mf.bytes;
          if (mf.number == 4 && IsLength(mf)) em.display_name = mf.bytes;
          if (mf.number == 5 && IsLength(mf)) em.stat_fields.emplace_back(mf.bytes, mf.offset);
        }
      }
      if (!meta.status().ok()) return Malformed(meta.status());
    }
  }
  if (!reader.status().ok()) return Malformed(reader.status());

  const std::optional<int> device = DeviceOrdinal(name);
  const bool host = name == "/host:CPU";
  if (!device && !host) return Status::Ok();  // metadata, task environment, SparseCore, chips
  trace_.track_names.push_back({ordinal, TrackName::kProcessTrack, trace_.strings.Intern(name)});
  WireReader lines(plane, offset);
  while (lines.Next(&f)) {
    if (f.number == 3 && IsLength(f)) {
      XPUPERF_RETURN_IF_ERROR(ReadLine(f.bytes, f.offset, ordinal, device.value_or(-1),
                                       device.has_value(), has_xla_ops));
    }
  }
  return Status::Ok();
}

Status XSpaceReader::ReadLine(std::string_view line, uint64_t offset, int pid, int device,
                              bool device_plane, bool plane_has_xla_ops) {
  int64_t id = 0, timestamp_ns = 0;
  std::string_view name, display_name;
  WireReader reader(line, offset);
  WireField f;
  while (reader.Next(&f)) {
    if (f.number == 1 && IsVarint(f)) id = f.AsInt64();
    if (f.number == 2 && IsLength(f)) name = f.bytes;
    if (f.number == 3 && IsVarint(f)) timestamp_ns = f.AsInt64();
    if (f.number == 11 && IsLength(f)) display_name = f.bytes;
  }
  if (!reader.status().ok()) return Malformed(reader.status());
  // Host lines are threads, their ids thread ids or 32-bit hashes: the low 31 bits keep them apart.
  const int tid = static_cast<int>(static_cast<uint64_t>(id) & 0x7fffffff);
  std::string_view shown = display_name.empty() ? name : display_name;
  trace_.track_names.push_back({pid, tid, trace_.strings.Intern(shown)});

  TraceEvent base;
  base.pid = pid;
  base.tid = tid;
  base.device = device;
  if (device_plane) {
    base.stream = tid;
    if (name == kXlaOpsCategory) {
      base.kind = EventKind::kKernel;
      base.category = trace_.strings.Intern(kXlaOpsCategory);
    } else if (name == kXlaModulesCategory || name == kXlaStepsCategory) {
      base.kind = EventKind::kGpuUserAnnotation;
      base.category = trace_.strings.Intern(name);
    } else {
      // Streams of a CUPTI trace are the device's ops unless XLA's own op line exists.
      base.kind = plane_has_xla_ops ? EventKind::kOther : EventKind::kKernel;
      base.category = trace_.strings.Intern(name);
    }
  } else {
    base.kind = EventKind::kCpuOp;
    base.category = trace_.strings.Intern("host");
  }
  WireReader events(line, offset);
  while (events.Next(&f)) {
    if (f.number == 4 && IsLength(f)) {
      XPUPERF_RETURN_IF_ERROR(ReadEvent(f.bytes, f.offset, timestamp_ns, base, !device_plane));
    }
  }
  return Status::Ok();
}

// floor(a / 1000) for any sign (C++ division truncates toward zero).
int64_t FloorDiv1000(int64_t a) { return a >= 0 ? a / 1000 : -((-(a + 1)) / 1000) - 1; }

Status XSpaceReader::ReadEvent(std::string_view event, uint64_t offset, int64_t line_ts_ns,
                               TraceEvent e, bool host_plane) {
  int64_t metadata_id = 0, offset_ps = 0, duration_ps = 0;
  bool aggregated = false;
  std::vector<std::pair<std::string_view, uint64_t>> stats;
  WireReader reader(event, offset);
  WireField f;
  while (reader.Next(&f)) {
    if (f.number == 1 && IsVarint(f)) metadata_id = f.AsInt64();
    if (f.number == 2 && IsVarint(f)) offset_ps = f.AsInt64();
    if (f.number == 3 && IsVarint(f)) duration_ps = f.AsInt64();
    if (f.number == 4 && IsLength(f)) stats.emplace_back(f.bytes, f.offset);
    if (f.number == 5 && IsVarint(f)) aggregated = true;  // num_occurrences: a count, not a span
  }
  if (!reader.status().ok()) return Malformed(reader.status());
  int64_t start_ns = 0, end_ns = 0, end_ps = 0;
  if (aggregated || duration_ps < 0 || __builtin_add_overflow(offset_ps, duration_ps, &end_ps) ||
      __builtin_add_overflow(line_ts_ns, FloorDiv1000(offset_ps), &start_ns) ||
      __builtin_add_overflow(line_ts_ns, FloorDiv1000(end_ps), &end_ns) || start_ns >= kMaxTs ||
      start_ns <= -(kMaxTs >> 2) || end_ns - start_ns >= kMaxDur) {
    ++trace_.skipped_events;
    return Status::Ok();
  }
  if (trace_.events.size() >= UINT32_MAX) {
    ++trace_.skipped_events;
    return Status::Ok();
  }
  e.ts_ns = start_ns;
  e.dur_ns = end_ns - start_ns;

  // The metadata's facts once per metadata id, the event's own stats each time.
  auto meta = event_meta_.find(metadata_id);
  std::optional<HloFacts>& cached = meta_facts_[metadata_id];
  if (!cached) {
    cached.emplace();
    if (meta != event_meta_.end())
      XPUPERF_RETURN_IF_ERROR(CollectFacts(meta->second.stat_fields, &*cached));
  }
  HloFacts facts = *cached;
  if (!stats.empty()) {
    HloFacts own;
    XPUPERF_RETURN_IF_ERROR(CollectFacts(stats, &own));
    if (!own.hlo_op.empty()) facts.hlo_op = own.hlo_op;
    if (!own.hlo_module.empty()) facts.hlo_module = own.hlo_module;
    if (!own.hlo_category.empty()) facts.hlo_category = own.hlo_category;
    if (own.flops >= 0) facts.flops = own.flops;
    if (own.bytes_accessed >= 0) facts.bytes_accessed = own.bytes_accessed;
    if (own.correlation >= 0) facts.correlation = own.correlation;
    facts.step = own.step;
  }
  auto name_it = meta_name_ids_.find(metadata_id);
  if (name_it == meta_name_ids_.end()) {
    std::string_view name;
    if (meta != event_meta_.end()) {
      name = meta->second.name.empty() ? meta->second.display_name : meta->second.name;
    }
    name_it = meta_name_ids_.emplace(metadata_id, trace_.strings.Intern(name)).first;
  }
  e.name = name_it->second;
  e.correlation = facts.correlation;
  const bool xla_op = e.kind == EventKind::kKernel && trace_.Category(e) == kXlaOpsCategory;
  if (host_plane && !facts.hlo_op.empty()) {
    // XLA:CPU runs the ops on host threads: the op is what the stat names.
    e.name = trace_.strings.Intern(facts.hlo_op);
    e.category = trace_.strings.Intern(kXlaOpsCategory);
    RecordFacts(e.name, facts);
  } else if (host_plane && facts.step) {
    // jax.profiler.StepTraceAnnotation / TraceMe with step_num: the host's step markers.
    e.kind = EventKind::kUserAnnotation;
    e.category = trace_.strings.Intern(kXlaStepsCategory);
  } else if (xla_op) {
    RecordFacts(e.name, facts);
  }
  if (!facts.hlo_module.empty()) e.module = trace_.strings.Intern(facts.hlo_module);
  trace_.events.push_back(e);
  return Status::Ok();
}

}  // namespace

bool IsXPlaneFileName(std::string_view path) {
  constexpr std::string_view kSuffix = ".xplane.pb";
  return path.size() >= kSuffix.size() && path.substr(path.size() - kSuffix.size()) == kSuffix;
}

Result<Trace> ParseXSpace(std::string_view bytes, std::string source) {
  Trace trace;
  trace.source = std::move(source);
  trace.format = TraceFormat::kXPlane;
  trace.input_bytes = static_cast<int64_t>(bytes.size());
  XSpaceReader reader(bytes, trace);
  XPUPERF_RETURN_IF_ERROR(reader.Run());
  return trace;
}

Result<Trace> ReadXSpaceFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path));
  const uint64_t size = file.size_bytes();
  if (size > MaxDecompressedBytes()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     path + ": " + std::to_string(size) + " bytes, more than the input cap of " +
                         std::to_string(MaxDecompressedBytes()) +
                         " bytes (raise it with --max-decompressed-bytes)");
  }
  if (size == 0) return ParseXSpace({}, path);
  void* at = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (at == MAP_FAILED) return MakeError(ErrorCode::kIo, path + ": cannot map the file");
  madvise(at, size, MADV_SEQUENTIAL);
  auto parsed = ParseXSpace(std::string_view(static_cast<const char*>(at), size), path);
  munmap(at, size);
  return parsed;
}

}  // namespace xpuperf::trace

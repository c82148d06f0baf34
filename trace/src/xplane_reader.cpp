// XSpace -> Trace (xplane.h states the mapping). Field numbers: tsl/profiler/protobuf/xplane.proto.
// Each plane is walked twice over the same bytes: once for its metadata maps and line names
// (serializers write lines before the maps, so names are not known on the first sight of an
// event), once for the events.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

bool IsValidUtf8(std::string_view text);
std::string RepairUtf8(std::string_view text);

class XSpaceReader {
 public:
  XSpaceReader(std::string_view bytes, Trace& trace) : bytes_(bytes), trace_(trace) {}

  Status Run() {
    xla_ops_category_ = trace_.strings.Intern(kXlaOpsCategory);
    steps_category_ = trace_.strings.Intern(kXlaStepsCategory);
    host_category_ = trace_.strings.Intern("host");
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
  std::string_view StringOf(const StatValue& v) const {
    if (v.kind == StatValue::Kind::kString) return v.text;
    if (v.ref >= 0 && static_cast<uint64_t>(v.ref) < dense_stat_names_.size()) {
      return dense_stat_names_[static_cast<size_t>(v.ref)];
    }
    if (v.ref >= 0) {
      auto it = stat_names_.find(v.ref);
      if (it != stat_names_.end()) return it->second;
    }
    return {};
  }
  // Interns text from the file. proto3 strings should be UTF-8 but nothing enforces it, and the
  // JSON renderers need valid UTF-8: each invalid byte becomes U+FFFD.
  uint32_t InternText(std::string_view text) {
    if (IsValidUtf8(text)) return trace_.strings.Intern(text);
    return trace_.strings.Intern(RepairUtf8(text));
  }
  // Interns a string that is usually the one interned last time (an op's module, event after
  // event): a compare instead of a hash.
  struct InternMemo {
    std::string_view text;
    uint32_t id = 0;
  };
  uint32_t InternRepeated(std::string_view text, InternMemo& memo) {
    if (memo.id == 0 || memo.text != text) memo = {text, InternText(text)};
    return memo.id;
  }
  void RecordFacts(uint32_t name, const HloFacts& facts);

  // What the reader makes of a stat, by its metadata's name (looked up once per stat id).
  enum class StatRole : uint8_t {
    kOther,
    kHloOp,
    kHloModule,
    kHloCategory,
    kFlops,
    kModelFlops,
    kBytesAccessed,
    kCorrelation,
    kStepNum
  };
  StatRole RoleOf(int64_t stat_id) const {
    if (stat_id >= 0 && static_cast<uint64_t>(stat_id) < dense_roles_.size()) {
      return dense_roles_[static_cast<size_t>(stat_id)];
    }
    auto it = sparse_roles_.find(stat_id);
    return it == sparse_roles_.end() ? StatRole::kOther : it->second;
  }
  void SetStatName(int64_t stat_id, std::string_view name);
  // An event metadata's name and facts, decoded on the first event that uses it.
  struct MetaCache {
    bool ready = false;
    uint32_t name = 0;
    HloFacts facts;
  };
  MetaCache& CacheFor(int64_t metadata_id) {
    // Serializers number metadata densely from 1: a table for those, a map for the rest.
    if (metadata_id >= 0 && metadata_id < (int64_t{1} << 20)) {
      const auto slot = static_cast<size_t>(metadata_id);
      if (slot >= dense_cache_.size()) dense_cache_.resize(slot + 1);
      return dense_cache_[slot];
    }
    return sparse_cache_[metadata_id];
  }
  // Folds one XStat into *facts.
  Status FoldStat(std::string_view stat, uint64_t offset, HloFacts* facts) const;

  std::string_view bytes_;
  Trace& trace_;
  uint32_t xla_ops_category_ = 0, steps_category_ = 0, host_category_ = 0;
  // The plane being read.
  std::unordered_map<int64_t, std::string_view> stat_names_;
  std::vector<std::string_view> dense_stat_names_;  // ids below 4096
  std::vector<StatRole> dense_roles_;
  InternMemo op_memo_, module_memo_;
  std::unordered_map<int64_t, StatRole> sparse_roles_;
  std::unordered_map<int64_t, EventMeta> event_meta_;
  std::vector<MetaCache> dense_cache_;
  std::unordered_map<int64_t, MetaCache> sparse_cache_;
};

// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). The length
// of the valid sequence at text[i], or 0.
size_t Utf8SequenceAt(std::string_view text, size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) return 1;
  auto continuation = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
    if (i + k >= text.size()) return false;
    const auto b = static_cast<unsigned char>(text[i + k]);
    return b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return continuation(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const unsigned char lo = b0 == 0xe0 ? 0xa0 : 0x80, hi = b0 == 0xed ? 0x9f : 0xbf;
    return continuation(1, lo, hi) && continuation(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const unsigned char lo = b0 == 0xf0 ? 0x90 : 0x80, hi = b0 == 0xf4 ? 0x8f : 0xbf;
    return continuation(1, lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceAt(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string RepairUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceAt(text, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

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

void XSpaceReader::SetStatName(int64_t stat_id, std::string_view name) {
  stat_names_[stat_id] = name;
  StatRole role = StatRole::kOther;
  if (name == "hlo_op") role = StatRole::kHloOp;
  if (name == "hlo_module") role = StatRole::kHloModule;
  if (name == "hlo_category") role = StatRole::kHloCategory;
  if (name == "flops") role = StatRole::kFlops;
  if (name == "model_flops") role = StatRole::kModelFlops;
  if (name == "bytes_accessed") role = StatRole::kBytesAccessed;
  if (name == "correlation_id") role = StatRole::kCorrelation;
  if (name == "step_num") role = StatRole::kStepNum;
  if (stat_id >= 0 && stat_id < 4096) {
    const auto slot = static_cast<size_t>(stat_id);
    if (slot >= dense_roles_.size()) {
      dense_roles_.resize(slot + 1, StatRole::kOther);
      dense_stat_names_.resize(slot + 1);
    }
    dense_roles_[slot] = role;
    dense_stat_names_[slot] = name;
  } else {
    sparse_roles_[stat_id] = role;
  }
}

Status XSpaceReader::FoldStat(std::string_view stat, uint64_t offset, HloFacts* facts) const {
  StatValue v;
  XPUPERF_RETURN_IF_ERROR(ReadStat(stat, offset, &v));
  switch (RoleOf(v.metadata_id)) {
    case StatRole::kOther:
      break;
    case StatRole::kHloOp:
      facts->hlo_op = StringOf(v);
      break;
    case StatRole::kHloModule:
      facts->hlo_module = StringOf(v);
      break;
    case StatRole::kHloCategory:
      facts->hlo_category = StringOf(v);
      break;
    case StatRole::kFlops:
      facts->flops = v.AsCount();
      break;
    case StatRole::kModelFlops:  // XLA's own count wins when both are there
      if (facts->flops < 0) facts->flops = v.AsCount();
      break;
    case StatRole::kBytesAccessed:
      facts->bytes_accessed = v.AsCount();
      break;
    case StatRole::kCorrelation:
      facts->correlation = v.AsCount();
      break;
    case StatRole::kStepNum:
      facts->step = true;
      break;
  }
  return Status::Ok();
}

void XSpaceReader::RecordFacts(uint32_t name, const HloFacts& facts) {
  XlaOpInfo& info = trace_.xla_ops[name];
  if (!facts.hlo_category.empty() && info.category == 0) {
    info.category = InternText(facts.hlo_category);
  }
  if (!facts.hlo_module.empty() && info.module == 0) {
    info.module = InternText(facts.hlo_module);
  }
  if (facts.flops >= 0 && info.flops < 0) info.flops = facts.flops;
  if (facts.bytes_accessed >= 0 && info.bytes_accessed < 0) {
    info.bytes_accessed = facts.bytes_accessed;
  }
}

Status XSpaceReader::ReadPlane(std::string_view plane, uint64_t offset, int ordinal) {
  stat_names_.clear();
  dense_stat_names_.clear();
  op_memo_ = {};
  module_memo_ = {};
  dense_roles_.clear();
  sparse_roles_.clear();
  event_meta_.clear();
  dense_cache_.clear();
  sparse_cache_.clear();
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
        SetStatName(key, stat_name);
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
  trace_.track_names.push_back({ordinal, TrackName::kProcessTrack, InternText(name)});
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
  trace_.track_names.push_back({pid, tid, InternText(shown)});

  TraceEvent base;
  base.pid = pid;
  base.tid = tid;
  base.device = device;
  if (device_plane) {
    base.stream = tid;
    if (name == kXlaOpsCategory) {
      base.kind = EventKind::kKernel;
      base.category = xla_ops_category_;
    } else if (name == kXlaModulesCategory || name == kXlaStepsCategory) {
      base.kind = EventKind::kGpuUserAnnotation;
      base.category = InternText(name);
    } else {
      // Streams of a CUPTI trace are the device's ops unless XLA's own op line exists.
      base.kind = plane_has_xla_ops ? EventKind::kOther : EventKind::kKernel;
      base.category = InternText(name);
    }
  } else {
    base.kind = EventKind::kCpuOp;
    base.category = host_category_;
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
  bool aggregated = false, has_own = false;
  HloFacts own;  // the event's own stats, folded as they come
  WireReader reader(event, offset);
  WireField f;
  while (reader.Next(&f)) {
    if (f.number == 1 && IsVarint(f)) metadata_id = f.AsInt64();
    if (f.number == 2 && IsVarint(f)) offset_ps = f.AsInt64();
    if (f.number == 3 && IsVarint(f)) duration_ps = f.AsInt64();
    if (f.number == 4 && IsLength(f)) {
      XPUPERF_RETURN_IF_ERROR(FoldStat(f.bytes, f.offset, &own));
      has_own = true;
    }
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

  // The metadata's name and facts once per metadata id, the event's own stats each time.
  MetaCache& meta = CacheFor(metadata_id);
  if (!meta.ready) {
    meta.ready = true;
    std::string_view name;
    auto it = event_meta_.find(metadata_id);
    if (it != event_meta_.end()) {
      name = it->second.name.empty() ? it->second.display_name : it->second.name;
      for (const auto& [bytes, at] : it->second.stat_fields) {
        XPUPERF_RETURN_IF_ERROR(FoldStat(bytes, at, &meta.facts));
      }
    }
    meta.name = InternText(name);
  }
  HloFacts facts = meta.facts;
  if (has_own) {
    if (!own.hlo_op.empty()) facts.hlo_op = own.hlo_op;
    if (!own.hlo_module.empty()) facts.hlo_module = own.hlo_module;
    if (!own.hlo_category.empty()) facts.hlo_category = own.hlo_category;
    if (own.flops >= 0) facts.flops = own.flops;
    if (own.bytes_accessed >= 0) facts.bytes_accessed = own.bytes_accessed;
    if (own.correlation >= 0) facts.correlation = own.correlation;
    facts.step = facts.step || own.step;
  }
  e.name = meta.name;
  e.correlation = facts.correlation;
  const bool xla_op = e.kind == EventKind::kKernel && e.category == xla_ops_category_;
  if (host_plane && !facts.hlo_op.empty()) {
    // XLA:CPU runs the ops on host threads: the op is what the stat names.
    e.name = facts.hlo_op == trace_.strings.Get(meta.name) ? meta.name
                                                           : InternRepeated(facts.hlo_op, op_memo_);
    e.category = xla_ops_category_;
    RecordFacts(e.name, facts);
  } else if (host_plane && facts.step) {
    // jax.profiler.StepTraceAnnotation / TraceMe with step_num: the host's step markers.
    e.kind = EventKind::kUserAnnotation;
    e.category = steps_category_;
  } else if (xla_op) {
    RecordFacts(e.name, facts);
  }
  if (!facts.hlo_module.empty()) e.module = InternRepeated(facts.hlo_module, module_memo_);
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
  // Room for the events up front (an XEvent is rarely under 24 bytes on the wire), so the vector
  // is not copied as it grows; pages never written cost nothing. Capped at a quarter of RAM.
  static const size_t kRam =
      static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  trace.events.reserve(std::min(bytes.size() / 24, kRam / 4 / sizeof(TraceEvent)));
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
  if (size == 0) {
    return MakeError(ErrorCode::kParse,
                     path + ": empty file (an XLA profile holds at least one plane)");
  }
  // Read into memory, not mapped: a file truncated while it is read (a profile still being
  // written, or cut by another process) would raise SIGBUS on the first page past its new end.
  std::string bytes(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got =
        pread(file.fd(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return MakeError(ErrorCode::kIo, path + ": read failed: " + std::strerror(errno));
    }
    if (got == 0) {
      return MakeError(ErrorCode::kIo, path + ": the file shrank from " + std::to_string(size) +
                                           " to " + std::to_string(done) +
                                           " bytes while being read (truncated by another "
                                           "process?)");
    }
    done += static_cast<size_t>(got);
  }
  return ParseXSpace(bytes, path);
}

}  // namespace xpuperf::trace

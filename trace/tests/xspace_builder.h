// Builds serialized XSpace messages (what an .xplane.pb holds) for the reader's tests and the
// fuzzer's seeds, with the field numbers of tsl/profiler/protobuf/xplane.proto.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xpuperf/core/protobuf_wire.h"

namespace xpuperf::trace::testing {

struct XStatSpec {
  std::string name;
  enum class Kind { kInt, kUint, kDouble, kString, kRef } kind = Kind::kInt;
  int64_t integer = 0;
  double number = 0;
  std::string text;  // kString; kRef: the name of the stat metadata it refers to
};
inline XStatSpec IntStat(std::string name, int64_t v) {
  return {std::move(name), XStatSpec::Kind::kInt, v, 0, {}};
}
inline XStatSpec UintStat(std::string name, int64_t v) {
  return {std::move(name), XStatSpec::Kind::kUint, v, 0, {}};
}
inline XStatSpec DoubleStat(std::string name, double v) {
  return {std::move(name), XStatSpec::Kind::kDouble, 0, v, {}};
}
inline XStatSpec StrStat(std::string name, std::string v) {
  return {std::move(name), XStatSpec::Kind::kString, 0, 0, std::move(v)};
}
inline XStatSpec RefStat(std::string name, std::string v) {
  return {std::move(name), XStatSpec::Kind::kRef, 0, 0, std::move(v)};
}

struct XEventSpec {
  std::string name;  // of its XEventMetadata
  int64_t offset_ps = 0;
  int64_t duration_ps = 0;
  std::vector<XStatSpec> stats;
};

struct XLineSpec {
  int64_t id = 0;
  std::string name;
  int64_t timestamp_ns = 0;
  std::vector<XEventSpec> events;
};

struct XPlaneSpec {
  int64_t id = 0;
  std::string name;
  std::vector<XLineSpec> lines;
  std::map<std::string, std::vector<XStatSpec>>
      metadata_stats;  // stats of an event name's metadata
};

class XSpaceBuilder {
 public:
  XSpaceBuilder& Plane(XPlaneSpec plane) {
    planes_.push_back(std::move(plane));
    return *this;
  }
  std::string Build() {
    wire::WireWriter space;
    for (auto& plane : planes_) space.Bytes(1, BuildPlane(plane));
    space.Bytes(4, "test-host");  // hostnames
    return space.Take();
  }

 private:
  struct Ids {
    std::map<std::string, int64_t> events, stats;
    int64_t Event(const std::string& n) {
      return events.emplace(n, events.size() + 1).first->second;
    }
    int64_t Stat(const std::string& n) { return stats.emplace(n, stats.size() + 1).first->second; }
  };

  static std::string Stat(const XStatSpec& s, Ids& ids) {
    wire::WireWriter w;
    w.Int64(1, ids.Stat(s.name));
    switch (s.kind) {
      case XStatSpec::Kind::kInt:
        w.Int64(4, s.integer);
        break;
      case XStatSpec::Kind::kUint:
        w.Varint(3, static_cast<uint64_t>(s.integer));
        break;
      case XStatSpec::Kind::kDouble:
        w.Double(2, s.number);
        break;
      case XStatSpec::Kind::kString:
        w.Bytes(5, s.text);
        break;
      case XStatSpec::Kind::kRef:
        w.Varint(7, static_cast<uint64_t>(ids.Stat(s.text)));
        break;
    }
    return w.Take();
  }

  static std::string BuildPlane(const XPlaneSpec& plane) {
    Ids ids;
    wire::WireWriter w;
    w.Int64(1, plane.id);
    w.Bytes(2, plane.name);
    for (const auto& line : plane.lines) {
      wire::WireWriter l;
      l.Int64(1, line.id);
      l.Bytes(2, line.name);
      l.Int64(3, line.timestamp_ns);
      for (const auto& event : line.events) {
        wire::WireWriter e;
        e.Int64(1, ids.Event(event.name));
        e.Int64(2, event.offset_ps);
        e.Int64(3, event.duration_ps);
        for (const auto& stat : event.stats) e.Bytes(4, Stat(stat, ids));
        l.Bytes(4, e.data());
      }
      w.Bytes(3, l.data());
    }
    for (const auto& [name, stats] : plane.metadata_stats) ids.Event(name);
    // Serializers write maps after the lines (field order): the reader must not rely on seeing
    // them first.
    std::map<int64_t, std::string> event_meta;
    for (const auto& [name, id] : ids.events) {
      wire::WireWriter m;
      m.Int64(1, id);
      m.Bytes(2, name);
      auto stats = plane.metadata_stats.find(name);
      if (stats != plane.metadata_stats.end()) {
        for (const auto& stat : stats->second) m.Bytes(5, Stat(stat, ids));
      }
      event_meta[id] = m.Take();
    }
    for (const auto& [id, bytes] : event_meta) {
      wire::WireWriter entry;
      entry.Int64(1, id);
      entry.Bytes(2, bytes);
      w.Bytes(4, entry.data());
    }
    for (const auto& [name, id] : ids.stats) {
      wire::WireWriter m;
      m.Int64(1, id);
      m.Bytes(2, name);
      wire::WireWriter entry;
      entry.Int64(1, id);
      entry.Bytes(2, m.data());
      w.Bytes(5, entry.data());
    }
    return w.Take();
  }

  std::vector<XPlaneSpec> planes_;
};

// A TPU device plane with XLA's three lines and a host plane with an XLA:CPU op: the example the
// tests and the fuzzer's seeds share. Line timestamps are epoch ns; offsets and durations ps.
inline std::string SampleTpuXSpace() {
  XPlaneSpec tpu{1, "/device:TPU:0", {}, {}};
  const int64_t t0 = 1'764'000'000'000'000'000;  // ns since the epoch
  tpu.lines.push_back({10,
                       "Steps",
                       t0,
                       {{"1", 0, 10'000'000, {IntStat("step_num", 1)}},
                        {"2", 12'000'000, 10'000'000, {IntStat("step_num", 2)}}}});
  tpu.lines.push_back({11,
                       "XLA Modules",
                       t0,
                       {{"jit_train_step(123)", 500'000, 9'000'000, {}},
                        {"jit_train_step(123)", 12'500'000, 9'000'000, {}}}});
  XLineSpec ops{12, "XLA Ops", t0, {}};
  for (int step = 0; step < 2; ++step) {
    const int64_t base = step * 12'000'000 + 1'000'000;
    ops.events.push_back({"fusion.1", base, 2'000'000 + step * 1'000'000, {}});
    ops.events.push_back({"convolution.2", base + 3'500'000, 4'000'000, {}});
  }
  tpu.lines.push_back(std::move(ops));
  tpu.metadata_stats["fusion.1"] = {StrStat("hlo_category", "loop fusion"), UintStat("flops", 1000),
                                    UintStat("bytes_accessed", 4096)};
  tpu.metadata_stats["convolution.2"] = {RefStat("hlo_category", "convolution"),
                                         DoubleStat("flops", 8.0e6)};
  XPlaneSpec host{2, "/host:CPU", {}, {}};
  host.lines.push_back({4242,
                        "python",
                        t0,
                        {{"ynn_fusion",
                          100'000,
                          50'000,
                          {StrStat("hlo_op", "ynn_fusion"), StrStat("hlo_module", "jit_f")}}}});
  XPlaneSpec meta{3, "/host:metadata", {{1, "ignored", t0, {{"x", 0, 1000, {}}}}}, {}};
  return XSpaceBuilder().Plane(tpu).Plane(host).Plane(meta).Build();
}

}  // namespace xpuperf::trace::testing

#include "xpuperf/roofline/workload.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>

#include "op_costs.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::roofline {
namespace {

// yaml-cpp throws; every throw stays inside this file and becomes a kParse naming file:line.
class Parser {
 public:
  explicit Parser(std::string_view file) : file_(file) {}

  Error At(const YAML::Node& node, std::string_view what) const {
    std::string where = file_;
    if (node && !node.Mark().is_null()) where += ":" + std::to_string(node.Mark().line + 1);
    return MakeError(ErrorCode::kParse, where + ": " + std::string(what));
  }

  // A misspelled key must not be ignored: "flop" for "flops" would turn a compute-bound point
  // memory-bound. Names the key, its line and the keys this map takes.
  Status KnownKeys(const YAML::Node& map, const std::vector<std::string_view>& known,
                   std::string_view where) const {
    for (const auto& item : map) {
      const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string("?");
      bool found = false;
      for (std::string_view name : known) found = found || name == key;
      if (found) continue;
      std::string list;
      for (std::string_view name : known) list += (list.empty() ? "" : ", ") + std::string(name);
      return At(item.first, fmt::format("unknown key '{}' in {} (known: {})", key, where, list));
    }
    return Status::Ok();
  }

  Result<double> Number(const YAML::Node& node, std::string_view name) const {
    double value = 0;
    if (!node.IsScalar() || !YAML::convert<double>::decode(node, value) || !std::isfinite(value)) {
      return At(node, fmt::format("'{}' is not a number", name));
    }
    if (value < 0) return At(node, fmt::format("'{}' is negative", name));
    return value;
  }

  // Sets `out` when `key` is present.
  Status Optional(const YAML::Node& map, const char* key, double& out) const {
    const YAML::Node node = map[key];
    if (!node) return Status::Ok();
    XPUPERF_ASSIGN_OR_RETURN(out, Number(node, key));
    return Status::Ok();
  }

  Status OptionalBool(const YAML::Node& map, const char* key, bool& out) const {
    const YAML::Node node = map[key];
    if (!node) return Status::Ok();
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, out)) {
      return At(node, fmt::format("'{}' is not true or false", key));
    }
    return Status::Ok();
  }

  Status OptionalString(const YAML::Node& map, const char* key, std::string& out) const {
    const YAML::Node node = map[key];
    if (!node) return Status::Ok();
    if (!node.IsScalar()) return At(node, fmt::format("'{}' is not text", key));
    out = node.Scalar();
    return Status::Ok();
  }

  Result<double> Required(const YAML::Node& map, const char* key, std::string_view helper) const {
    const YAML::Node node = map[key];
    if (!node) return At(map, fmt::format("{} needs '{}'", helper, key));
    return Number(node, fmt::format("{}.{}", helper, key));
  }

  // Applies the op helper of `entry` (at most one) to `point`.
  Status ApplyHelper(const YAML::Node& entry, WorkloadPoint& point) const {
    static constexpr const char* kHelpers[] = {"gemm", "attention", "elementwise", "conv2d",
                                               "collective"};
    const char* found = nullptr;
    for (const char* helper : kHelpers) {
      if (!entry[helper]) continue;
      if (found != nullptr) {
        return At(entry[helper],
                  fmt::format("an entry takes one op helper ({} and {} given)", found, helper));
      }
      found = helper;
    }
    if (found == nullptr) return Status::Ok();
    const YAML::Node node = entry[found];
    if (!node.IsMap()) return At(node, fmt::format("'{}' is not a map", found));
    const std::string helper(found);
    // Vectors, not initializer_lists: a list's array would not outlive this initialisation.
    static const std::map<std::string, std::vector<std::string_view>> kHelperKeys = {
        {"gemm", {"m", "n", "k", "batch", "accumulate", "dtype"}},
        {"attention", {"batch", "heads", "seq_len", "head_dim", "kv_seq_len", "causal", "dtype"}},
        {"elementwise", {"elements", "inputs", "outputs", "flops_per_element", "dtype"}},
        {"conv2d",
         {"batch", "in_channels", "out_channels", "height", "width", "kernel", "kernel_h",
          "kernel_w", "stride", "padding", "groups", "dtype"}},
        {"collective", {"op", "bytes", "ranks", "dtype"}}};
    XPUPERF_RETURN_IF_ERROR(KnownKeys(node, kHelperKeys.at(helper), "'" + helper + "'"));
    point.op = helper;
    std::string dtype = point.dtype;
    XPUPERF_RETURN_IF_ERROR(OptionalString(node, "dtype", dtype));
    Result<OpCost> cost = MakeError(ErrorCode::kInternal, "no helper");
    if (helper == "gemm") {
      GemmShape shape;
      XPUPERF_ASSIGN_OR_RETURN(shape.m, Required(node, "m", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.n, Required(node, "n", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.k, Required(node, "k", helper));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "batch", shape.batch));
      XPUPERF_RETURN_IF_ERROR(OptionalBool(node, "accumulate", shape.accumulate));
      shape.dtype = dtype;
      cost = GemmCost(shape);
    } else if (helper == "attention") {
      AttentionShape shape;
      XPUPERF_ASSIGN_OR_RETURN(shape.batch, Required(node, "batch", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.heads, Required(node, "heads", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.seq_len, Required(node, "seq_len", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.head_dim, Required(node, "head_dim", helper));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "kv_seq_len", shape.kv_seq_len));
      XPUPERF_RETURN_IF_ERROR(OptionalBool(node, "causal", shape.causal));
      shape.dtype = dtype;
      cost = AttentionCost(shape);
    } else if (helper == "elementwise") {
      ElementwiseShape shape;
      XPUPERF_ASSIGN_OR_RETURN(shape.elements, Required(node, "elements", helper));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "inputs", shape.inputs));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "outputs", shape.outputs));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "flops_per_element", shape.flops_per_element));
      shape.dtype = dtype;
      cost = ElementwiseCost(shape);
    } else if (helper == "conv2d") {
      Conv2dShape shape;
      XPUPERF_RETURN_IF_ERROR(Optional(node, "batch", shape.batch));
      XPUPERF_ASSIGN_OR_RETURN(shape.in_channels, Required(node, "in_channels", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.out_channels, Required(node, "out_channels", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.height, Required(node, "height", helper));
      XPUPERF_ASSIGN_OR_RETURN(shape.width, Required(node, "width", helper));
      double kernel = 0;
      XPUPERF_RETURN_IF_ERROR(Optional(node, "kernel", kernel));
      shape.kernel_h = shape.kernel_w = kernel;
      XPUPERF_RETURN_IF_ERROR(Optional(node, "kernel_h", shape.kernel_h));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "kernel_w", shape.kernel_w));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "stride", shape.stride));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "padding", shape.padding));
      XPUPERF_RETURN_IF_ERROR(Optional(node, "groups", shape.groups));
      shape.dtype = dtype;
      cost = Conv2dCost(shape);
    } else {  // collective
      std::string op;
      XPUPERF_RETURN_IF_ERROR(OptionalString(node, "op", op));
      if (op.empty()) return At(node, "collective needs 'op'");
      XPUPERF_ASSIGN_OR_RETURN(const double bytes, Required(node, "bytes", helper));
      double ranks = 0;
      XPUPERF_ASSIGN_OR_RETURN(ranks, Required(node, "ranks", helper));
      Result<double> bus = CollectiveBusBytes(op, bytes, ranks);
      if (!bus.ok()) return At(node, bus.error().message);
      point.collective_bytes += *bus;
      point.collective_message_bytes = bytes;
      point.formula = fmt::format("{} of {:.6g} B over {:.0f} ranks = {:.6g} bus bytes", op, bytes,
                                  ranks, *bus);
      return Status::Ok();
    }
    if (!cost.ok()) return At(node, cost.error().message);
    point.dtype = dtype;
    point.flops += cost->flops;
    point.bytes += cost->bytes;
    point.formula = cost->formula;
    return Status::Ok();
  }

  Result<WorkloadPoint> Entry(const YAML::Node& entry, size_t index) const {
    if (!entry.IsMap()) return At(entry, "a workload entry is not a map");
    XPUPERF_RETURN_IF_ERROR(KnownKeys(entry,
                                      {"name",
                                       "dtype",
                                       "op",
                                       "gemm",
                                       "attention",
                                       "elementwise",
                                       "conv2d",
                                       "collective",
                                       "flops",
                                       "bytes",
                                       "host_bytes",
                                       "host_direction",
                                       "collective_bytes",
                                       "collective_message_bytes",
                                       "bytes_by_level",
                                       "time",
                                       "time_s",
                                       "time_ms",
                                       "time_us",
                                       "follows_previous"},
                                      "a workload entry"));
    WorkloadPoint point;
    point.name = fmt::format("point {}", index + 1);
    XPUPERF_RETURN_IF_ERROR(OptionalString(entry, "name", point.name));
    XPUPERF_RETURN_IF_ERROR(OptionalString(entry, "dtype", point.dtype));
    XPUPERF_RETURN_IF_ERROR(OptionalString(entry, "op", point.op));
    XPUPERF_RETURN_IF_ERROR(OptionalBool(entry, "follows_previous", point.follows_previous));
    XPUPERF_RETURN_IF_ERROR(ApplyHelper(entry, point));
    double extra = 0;
    XPUPERF_RETURN_IF_ERROR(Optional(entry, "flops", extra));
    point.flops += extra;
    extra = 0;
    XPUPERF_RETURN_IF_ERROR(Optional(entry, "bytes", extra));
    point.bytes += extra;
    XPUPERF_RETURN_IF_ERROR(Optional(entry, "host_bytes", point.host_bytes));
    XPUPERF_RETURN_IF_ERROR(OptionalString(entry, "host_direction", point.host_direction));
    if (point.host_direction != "h2d" && point.host_direction != "d2h") {
      return At(entry["host_direction"], "host_direction is h2d or d2h");
    }
    extra = 0;
    XPUPERF_RETURN_IF_ERROR(Optional(entry, "collective_bytes", extra));
    point.collective_bytes += extra;
    XPUPERF_RETURN_IF_ERROR(
        Optional(entry, "collective_message_bytes", point.collective_message_bytes));
    if (const YAML::Node levels = entry["bytes_by_level"]) {
      if (!levels.IsMap()) return At(levels, "'bytes_by_level' is not a map");
      for (const auto& item : levels) {
        const std::string level = item.first.Scalar();
        XPUPERF_ASSIGN_OR_RETURN(point.bytes_by_level[level],
                                 Number(item.second, "bytes_by_level." + level));
      }
    }
    static constexpr std::pair<const char*, double> kTimes[] = {
        {"time", 1}, {"time_s", 1}, {"time_ms", 1e-3}, {"time_us", 1e-6}};
    for (const auto& [key, scale] : kTimes) {
      if (!entry[key]) continue;
      XPUPERF_ASSIGN_OR_RETURN(const double value, Number(entry[key], key));
      if (value <= 0) return At(entry[key], fmt::format("'{}' must be positive", key));
      point.time_seconds = value * scale;
    }
    Status valid = ValidatePoint(point);
    if (!valid.ok()) return At(entry, point.name + ": " + valid.error().message);
    return point;
  }

  Result<Workload> Document(const YAML::Node& root) const {
    Workload workload;
    // Node::operator= would overwrite the node `entries` refers to; reset() rebinds it.
    YAML::Node entries;
    entries.reset(root);
    if (root.IsMap()) {
      XPUPERF_RETURN_IF_ERROR(KnownKeys(root, {"name", "points", "memory"}, "the workload"));
      XPUPERF_RETURN_IF_ERROR(OptionalString(root, "name", workload.name));
      entries.reset(root["points"]);
      if (!entries) return At(root, "a workload map needs 'points' (a list of entries)");
      if (const YAML::Node memory = root["memory"]) {
        if (!memory.IsMap()) return At(memory, "'memory' is not a map");
        XPUPERF_RETURN_IF_ERROR(KnownKeys(memory, {"peak_bytes", "capacity_bytes"}, "'memory'"));
        MemoryUse use;
        XPUPERF_ASSIGN_OR_RETURN(use.peak_bytes, Required(memory, "peak_bytes", "memory"));
        XPUPERF_RETURN_IF_ERROR(Optional(memory, "capacity_bytes", use.capacity_bytes));
        workload.memory = use;
      }
    }
    if (!entries.IsSequence()) return At(entries, "the workload is not a list of entries");
    if (entries.size() == 0) return At(entries, "the workload has no entries");
    for (size_t i = 0; i < entries.size(); ++i) {
      XPUPERF_ASSIGN_OR_RETURN(WorkloadPoint point, Entry(entries[i], i));
      workload.points.push_back(std::move(point));
    }
    return workload;
  }

 private:
  std::string file_;
};

}  // namespace

Status ValidatePoint(const WorkloadPoint& point) {
  const double counts[] = {point.flops, point.bytes, point.host_bytes, point.collective_bytes};
  for (double count : counts) {
    if (!std::isfinite(count) || count < 0) {
      return MakeError(ErrorCode::kInvalidArgument, "counts must be finite and not negative");
    }
  }
  double level_bytes = 0;
  for (const auto& [level, bytes] : point.bytes_by_level) {
    if (!std::isfinite(bytes) || bytes < 0) {
      return MakeError(ErrorCode::kInvalidArgument, "bytes_by_level." + level + " is negative");
    }
    level_bytes += bytes;
  }
  if (point.flops == 0 && point.bytes == 0 && level_bytes == 0 && point.host_bytes == 0 &&
      point.collective_bytes == 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "give flops, bytes, host_bytes or collective_bytes (or an op helper)");
  }
  if (point.time_seconds && !(std::isfinite(*point.time_seconds) && *point.time_seconds > 0)) {
    return MakeError(ErrorCode::kInvalidArgument, "the time must be a positive number of seconds");
  }
  XPUPERF_RETURN_IF_ERROR(DtypeBytes(point.dtype));
  return Status::Ok();
}

Result<Workload> ParseWorkload(std::string_view text, std::string_view file_name) {
  Parser parser(file_name);
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    if (!root || root.IsNull()) {
      return MakeError(ErrorCode::kParse, std::string(file_name) + ": the workload file is empty");
    }
    return parser.Document(root);
  } catch (const YAML::Exception& e) {
    return parser.At(YAML::Node(), e.what());
  }
}

Result<Workload> LoadWorkload(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(const std::string text, ReadInputFile(path));
  return ParseWorkload(text, path);
}

int ApplyRecordedTimes(const std::vector<Reading>& readings, Workload& workload) {
  int filled = 0;
  for (const Reading& reading : readings) {
    if (reading.metric != metrics::kOpExecutionTime || reading.state != ReadingState::kOk) continue;
    for (const Sample& sample : reading.samples) {
      if (!sample.is_distribution() || !sample.labels.Has(labels::kOp)) continue;
      const Distribution& distribution = sample.distribution();
      if (distribution.count == 0 || !(distribution.sum > 0)) continue;
      const std::string_view op = sample.labels.Get(labels::kOp);
      for (WorkloadPoint& point : workload.points) {
        if (point.name != op || point.time_seconds) continue;
        const double calls = static_cast<double>(distribution.count);
        point.flops *= calls;
        point.bytes *= calls;
        for (auto& [level, bytes] : point.bytes_by_level) bytes *= calls;
        point.host_bytes *= calls;
        point.collective_bytes *= calls;
        point.time_seconds = distribution.sum;
        point.formula += fmt::format("{}x {} recorded calls", point.formula.empty() ? "" : "; ",
                                     distribution.count);
        ++filled;
      }
    }
  }
  return filled;
}

}  // namespace xpuperf::roofline

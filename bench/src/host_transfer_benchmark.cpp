#include "host_transfer_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "xpuperf/bench/host_transfer.h"
#include "xpuperf/bench/registry.h"

namespace xpuperf::bench {
namespace {

constexpr uint64_t kMaxTransferBytes = uint64_t{1} << 40;
// Source patterns, and a third one the destinations start with, so a copy that did not happen
// cannot pass verification.
constexpr uint64_t kSeedForward = 0x5eed0001;
constexpr uint64_t kSeedBackward = 0x5eed0002;
constexpr uint64_t kSeedStale = 0x5eed0003;

struct TransferPoint {
  CopyDirection direction = CopyDirection::kHostToDevice;
  HostMemoryKind host_memory = HostMemoryKind::kPinned;
  uint64_t bytes = uint64_t{64} << 20;
  bool remote = false;
  int buffers() const { return direction == CopyDirection::kBidirectional ? 4 : 2; }
  bool uses_host() const { return direction != CopyDirection::kDeviceToDevice; }
};

Result<std::string> TextParameter(const nlohmann::json& point, const char* key,
                                  const char* fallback) {
  if (!point.contains(key)) return std::string(fallback);
  if (!point[key].is_string()) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("host_transfer: '{}' must be text "
                                                              "(got {})",
                                                              key, point[key].dump()));
  }
  return point[key].get<std::string>();
}

Result<TransferPoint> ParsePoint(const nlohmann::json& point) {
  TransferPoint parsed;
  XPUPERF_ASSIGN_OR_RETURN(const std::string direction, TextParameter(point, "direction", "h2d"));
  XPUPERF_ASSIGN_OR_RETURN(parsed.direction, ParseCopyDirection(direction));
  XPUPERF_ASSIGN_OR_RETURN(const std::string memory, TextParameter(point, "host_memory", "pinned"));
  XPUPERF_ASSIGN_OR_RETURN(parsed.host_memory, ParseHostMemoryKind(memory));
  XPUPERF_ASSIGN_OR_RETURN(const std::string placement, TextParameter(point, "placement", "local"));
  if (placement != "local" && placement != "remote") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "host_transfer: unknown placement '" + placement + "' (known: local, remote)");
  }
  parsed.remote = placement == "remote";
  if (point.contains("bytes")) {
    const nlohmann::json& bytes = point["bytes"];
    if (!bytes.is_number_integer() || bytes.get<int64_t>() < 1 ||
        bytes.get<uint64_t>() > kMaxTransferBytes) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("host_transfer: 'bytes' must be an integer from 1 to 2^40 (got "
                                   "{})",
                                   bytes.dump()));
    }
    parsed.bytes = bytes.get<uint64_t>();
  }
  return parsed;
}

// "64 MiB", "8 B": bytes in the largest binary unit that divides them, for tables.
std::string SizeText(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", bytes, kUnits[unit]);
}

Status CheckFits(const TransferPoint& point, const Device& device) {
  const uint64_t memory = device.memory_bytes;
  if (memory > 0 && point.bytes * static_cast<uint64_t>(point.buffers()) > memory / 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("host_transfer: {} buffers of {} bytes do not fit in half of the "
                                 "{} MiB of memory",
                                 point.buffers(), point.bytes, memory >> 20));
  }
  return Status::Ok();
}

// The host buffers' node: the device's own (local) or the first other online node (remote).
Result<int> HostNodeFor(const TransferPoint& point, const TransferEngine& engine,
                        const std::vector<int>& nodes) {
  const int device_node = engine.device_numa_node();
  if (!point.remote) return device_node;
  if (nodes.size() < 2) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("unsupported: remote placement needs a second NUMA node; this "
                                 "machine has {} online",
                                 nodes.size()));
  }
  if (device_node < 0) {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported: remote placement needs the device's NUMA node, which "
                     "engine '" +
                         engine.name() + "' does not know");
  }
  for (int node : nodes) {
    if (node != device_node) return node;
  }
  return MakeError(ErrorCode::kUnsupported, "unsupported: no NUMA node other than the device's");
}

class HostTransferBenchmark final : public Benchmark {
 public:
  HostTransferBenchmark(TransferEngineFactory factory, std::string name, std::string root)
      : factory_(std::move(factory)), name_(std::move(name)), root_(std::move(root)) {}
  std::string name() const override { return name_; }
  Component component() const override { return Component::kHostTransfer; }
  std::string description() const override {
    return "host<->device copies (h2d, d2h, bidir, d2d), pageable vs pinned host memory, local "
           "vs remote NUMA node; GB/s above 64 KiB, us per copy up to it";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    return ParameterSchema{
        ChoiceParameter("direction", "h2d", {"h2d", "d2h", "bidir", "d2d"}),
        ChoiceParameter("host_memory", "pinned", {"pageable", "pinned"}),
        ChoiceParameter("placement", "local", {"local", "remote"}),
        IntegerParameter("bytes", uint64_t{64} << 20, 1, double(kMaxTransferBytes))};
  }
  std::vector<nlohmann::json> default_sweep() const override {
    std::vector<nlohmann::json> sweep;
    for (const char* direction : {"h2d", "d2h", "bidir"}) {
      for (const char* memory : {"pageable", "pinned"}) {
        for (uint64_t bytes : {uint64_t{8}, uint64_t{64} << 10, uint64_t{64} << 20}) {
          sweep.push_back({{"direction", direction}, {"host_memory", memory}, {"bytes", bytes}});
        }
      }
    }
    sweep.push_back({{"direction", "d2d"}, {"bytes", uint64_t{64} << 20}});
    sweep.push_back({{"direction", "h2d"},
                     {"host_memory", "pinned"},
                     {"bytes", uint64_t{64} << 20},
                     {"placement", "remote"}});
    return sweep;
  }

  Status CanRun(const Device& device, const nlohmann::json& json) const override {
    XPUPERF_ASSIGN_OR_RETURN(const TransferPoint point, ParsePoint(json));
    XPUPERF_RETURN_IF_ERROR(CheckFits(point, device));
    const std::vector<int> nodes = OnlineNumaNodes(root_);
    if (point.remote && nodes.size() < 2) {
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: remote placement needs a second NUMA node; this "
                                   "machine has {} online",
                                   nodes.size()));
    }
    XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<TransferEngine> engine, factory_(device, 0));
    XPUPERF_ASSIGN_OR_RETURN(const int host_node, HostNodeFor(point, *engine, nodes));
    if (point.uses_host() && point.host_memory == HostMemoryKind::kPinned) {
      // Page-locking can fail for lack of a limit or permission; only trying tells.
      XPUPERF_RETURN_IF_ERROR(engine->AllocateHost(point.bytes, point.host_memory, host_node));
    }
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& json, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const TransferPoint point, ParsePoint(json));
    XPUPERF_RETURN_IF_ERROR(CheckFits(point, *context.device));
    XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<TransferEngine> engine,
                             factory_(*context.device, context.threads));
    XPUPERF_ASSIGN_OR_RETURN(const int host_node,
                             HostNodeFor(point, *engine, OnlineNumaNodes(root_)));
    const size_t bytes = point.bytes;
    const auto host = [&]() { return engine->AllocateHost(bytes, point.host_memory, host_node); };
    const auto device = [&]() { return engine->AllocateDevice(bytes); };
    // Copy 1 is src1 -> dst1; copy 2 (bidir only) goes the other way, src2 -> dst2.
    std::unique_ptr<TransferBuffer> src1, dst1, src2, dst2;
    switch (point.direction) {
      case CopyDirection::kHostToDevice:
      case CopyDirection::kBidirectional: {
        XPUPERF_ASSIGN_OR_RETURN(src1, host());
        XPUPERF_ASSIGN_OR_RETURN(dst1, device());
        break;
      }
      case CopyDirection::kDeviceToHost: {
        XPUPERF_ASSIGN_OR_RETURN(src1, device());
        XPUPERF_ASSIGN_OR_RETURN(dst1, host());
        break;
      }
      case CopyDirection::kDeviceToDevice: {
        XPUPERF_ASSIGN_OR_RETURN(src1, device());
        XPUPERF_ASSIGN_OR_RETURN(dst1, device());
        break;
      }
    }
    const bool bidirectional = point.direction == CopyDirection::kBidirectional;
    if (bidirectional) {
      XPUPERF_ASSIGN_OR_RETURN(src2, device());
      XPUPERF_ASSIGN_OR_RETURN(dst2, host());
      XPUPERF_RETURN_IF_ERROR(engine->Fill(*src2, kSeedBackward));
      XPUPERF_RETURN_IF_ERROR(engine->Fill(*dst2, kSeedStale));
    }
    XPUPERF_RETURN_IF_ERROR(engine->Fill(*src1, kSeedForward));
    XPUPERF_RETURN_IF_ERROR(engine->Fill(*dst1, kSeedStale));

    Status copy_status = Status::Ok();
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions && copy_status.ok(); ++r) {
        copy_status = bidirectional
                          ? engine->EnqueueConcurrentCopies(*dst1, *src1, *dst2, *src2, bytes)
                          : engine->EnqueueCopy(*dst1, *src1, bytes);
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                             CollectSamples(engine->queue(), context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(copy_status);
    XPUPERF_RETURN_IF_ERROR(engine->Verify(*dst1, kSeedForward));
    if (bidirectional) XPUPERF_RETURN_IF_ERROR(engine->Verify(*dst2, kSeedBackward));

    Measurement m = MakeMeasurement(point, samples, context);
    m.timing_source = engine->queue().timing_source();
    m.parameters = json;
    m.parameters["direction"] = CopyDirectionName(point.direction);
    m.parameters["host_memory"] =
        point.uses_host() ? std::string(HostMemoryKindName(point.host_memory)) : "none";
    m.parameters["bytes"] = point.bytes;
    m.parameters["size"] = SizeText(point.bytes);
    m.parameters["placement"] = point.remote ? "remote" : "local";
    m.parameters["host_node"] = point.uses_host() ? host_node : -1;
    m.parameters["device_node"] = engine->device_numa_node();
    m.parameters["engine"] = engine->name();
    m.parameters["source"] = src1->description();
    m.parameters["destination"] = dst1->description();
    return std::vector<Measurement>{std::move(m)};
  }

 private:
  Measurement MakeMeasurement(const TransferPoint& point, const TimedSamples& samples,
                              const RunContext& context) const {
    const double counted = TransferBytesCounted(point.direction, point.bytes);
    const std::string counting = point.direction == CopyDirection::kBidirectional
                                     ? "one copy each way, both counted"
                                 : point.direction == CopyDirection::kDeviceToDevice
                                     ? "read + write of device memory (CUDA bandwidthTest counting)"
                                     : "each byte once";
    const bool latency = point.bytes <= kTransferLatencyMaxBytes;
    if (!latency) {
      Measurement m = MakeThroughput(name_, TransferMetricName(point.direction, false), samples,
                                     counted, false, context);
      m.formula = fmt::format("bytes = {:.6g} per repetition ({} bytes copied, {}); ", counted,
                              point.bytes, counting) +
                  m.formula;
      return m;
    }
    Measurement m;
    m.benchmark = name_;
    m.metric = TransferMetricName(point.direction, true);
    m.unit = "us";
    m.sample_seconds = samples.seconds_per_rep;
    m.statistics = ComputeStatistics(samples.seconds_per_rep);
    m.repetitions_per_sample = samples.repetitions;
    m.bytes_per_repetition = counted;
    m.value = m.statistics.median * 1e6;
    m.formula = fmt::format(
        "us per copy = median {:.6g} s per repetition x 1e6; a repetition is {} of {} bytes, "
        "issued back to back {} times per sample",
        m.statistics.median,
        point.direction == CopyDirection::kBidirectional ? "two concurrent copies (one each way)"
                                                         : "one copy",
        point.bytes, samples.repetitions);
    return m;
  }

  TransferEngineFactory factory_;
  std::string name_;
  std::string root_;
};

}  // namespace

double TransferBytesCounted(CopyDirection direction, uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  switch (direction) {
    case CopyDirection::kHostToDevice:
    case CopyDirection::kDeviceToHost:
      return b;
    case CopyDirection::kBidirectional:
    case CopyDirection::kDeviceToDevice:
      return 2 * b;
  }
  return b;
}

std::string TransferMetricName(CopyDirection direction, bool latency) {
  return std::string(CopyDirectionName(direction)) + (latency ? "_latency" : "_bandwidth");
}

Result<std::vector<int>> ParseNodeList(std::string_view text) {
  std::vector<int> nodes;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const auto bad = [&] {
    return MakeError(ErrorCode::kParse, fmt::format("malformed node list '{}'", text));
  };
  size_t position = 0;
  while (position < text.size()) {
    const size_t comma = std::min(text.find(',', position), text.size());
    const std::string_view item = text.substr(position, comma - position);
    const size_t dash = item.find('-');
    int first = 0, last = 0;
    try {
      size_t used = 0;
      first = std::stoi(std::string(item.substr(0, dash)), &used);
      if (used != std::min(dash, item.size())) return bad();
      last = first;
      if (dash != std::string_view::npos) {
        last = std::stoi(std::string(item.substr(dash + 1)), &used);
        if (used != item.size() - dash - 1) return bad();
      }
    } catch (const std::exception&) {
      return bad();
    }
    if (first < 0 || last < first || last - first > 65536) return bad();
    for (int node = first; node <= last; ++node) nodes.push_back(node);
    position = comma + 1;
  }
  return nodes;
}

std::vector<int> OnlineNumaNodes(const std::string& root) {
  std::ifstream file(root + "/sys/devices/system/node/online");
  std::string text;
  if (!file || !std::getline(file, text)) return {};
  auto nodes = ParseNodeList(text);
  return nodes.ok() ? *nodes : std::vector<int>{};
}

std::unique_ptr<Benchmark> MakeHostTransferBenchmark(TransferEngineFactory factory,
                                                     std::string name, std::string root) {
  return std::make_unique<HostTransferBenchmark>(std::move(factory), std::move(name),
                                                 std::move(root));
}

std::unique_ptr<Benchmark> MakeCpuHostTransferBenchmark(std::string root) {
  TransferEngineFactory factory = [root](const Device& device,
                                         int threads) -> Result<std::unique_ptr<TransferEngine>> {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no CPU transfer engine for backend '" + device.backend + "'");
    }
    CpuTransferOptions options;
    options.threads = threads;
    options.root = root;
    return MakeCpuTransferEngine(std::move(options));
  };
  return MakeHostTransferBenchmark(std::move(factory), "host_transfer", std::move(root));
}

}  // namespace xpuperf::bench

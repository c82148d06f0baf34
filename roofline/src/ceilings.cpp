#include "xpuperf/roofline/ceilings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "xpuperf/bench/figures.h"

namespace xpuperf::roofline {
namespace {

double NumberParameter(const BenchRecord& record, const char* key, double fallback = 0) {
  const auto it = record.parameters.find(key);
  return it != record.parameters.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string StringParameter(const BenchRecord& record, const char* key) {
  const auto it = record.parameters.find(key);
  return it != record.parameters.end() && it->is_string() ? it->get<std::string>() : "";
}

// A measured ceiling from one record, or nullopt when its unit is unknown or its value not > 0.
std::optional<Ceiling> FromRecord(const BenchRecord& record, CeilingKind kind, std::string scope,
                                  std::string variant, std::string basis) {
  const std::optional<double> factor = UnitToBase(record.unit);
  if (!factor || !(record.value > 0)) return std::nullopt;
  Ceiling ceiling;
  ceiling.kind = kind;
  ceiling.source = CeilingSource::kMeasured;
  ceiling.scope = std::move(scope);
  ceiling.variant = std::move(variant);
  ceiling.value = record.value * *factor;
  ceiling.recorded_value = record.value;
  ceiling.recorded_unit = record.unit;
  ceiling.benchmark = record.benchmark;
  ceiling.metric = record.metric;
  ceiling.basis = std::move(basis);
  ceiling.stable = record.stable;
  ceiling.unstable_reason = record.unstable_reason;
  return ceiling;
}

// Among `records`, the one at the largest parameters.bytes; ties go to the highest value. A
// stable record always beats an unstable one.
const BenchRecord* LargestSize(const std::vector<const BenchRecord*>& records) {
  const BenchRecord* best = nullptr;
  for (const BenchRecord* record : records) {
    if (best == nullptr || (record->stable && !best->stable)) {
      best = record;
      continue;
    }
    if (best->stable && !record->stable) continue;
    const double size = NumberParameter(*record, "bytes");
    const double best_size = NumberParameter(*best, "bytes");
    if (size > best_size || (size == best_size && record->value > best->value)) best = record;
  }
  return best;
}

// The better figure: a stable record always beats an unstable one, then the higher value.
bool Better(const BenchRecord& candidate, const BenchRecord* best) {
  if (best == nullptr) return true;
  if (candidate.stable != best->stable) return candidate.stable;
  return candidate.value > best->value;
}

const BenchRecord* Highest(const std::vector<const BenchRecord*>& records) {
  const BenchRecord* best = nullptr;
  for (const BenchRecord* record : records) {
    if (Better(*record, best)) best = record;
  }
  return best;
}

int LevelOrder(std::string_view level) {
  if (level == "L1") return 1;
  if (level == "L2") return 2;
  if (level == "L3") return 3;
  if (level == "L4") return 4;
  return 9;  // DRAM, HBM, device memory
}

std::string Scaled(double value, std::string_view unit) {
  static constexpr std::pair<double, const char*> kPrefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
  for (const auto& [scale, prefix] : kPrefixes) {
    if (std::fabs(value) >= scale) return fmt::format("{:.4g} {}{}", value / scale, prefix, unit);
  }
  return fmt::format("{:.4g} {}", value, unit);
}

}  // namespace

std::string_view CeilingKindName(CeilingKind kind) {
  switch (kind) {
    case CeilingKind::kCompute:
      return "compute";
    case CeilingKind::kMemory:
      return "memory";
    case CeilingKind::kHostLink:
      return "host_link";
    case CeilingKind::kNetwork:
      return "network";
  }
  return "unknown";
}

std::string Ceiling::Label() const {
  std::string label;
  switch (kind) {
    case CeilingKind::kCompute:
      label = scope + (variant == "gemm" ? " GEMM" : " peak");
      break;
    case CeilingKind::kMemory:
      label = scope;
      break;
    case CeilingKind::kHostLink:
      label = "host " + scope;
      break;
    case CeilingKind::kNetwork:
      label = scope + " busbw";
      break;
  }
  if (source == CeilingSource::kSpec) return label + " (spec)";
  return stable ? label : label + " (unstable)";
}

Ceilings CeilingsFromResults(const BenchResults& results) {
  std::map<std::string, std::vector<const BenchRecord*>> peak, gemm, cache, host, network;
  const BenchRecord* triad = nullptr;
  std::vector<const BenchRecord*> d2d;
  // One device's roofline (bench::FigureDeviceId): the first accelerator of the run when it has
  // one (its gpu_* benchmarks), else the host CPU.
  std::string device_id, backend = results.backend;
  for (const BenchRecord& record : results.records) {
    if (!record.device_backend.empty() && record.device_backend != "cpu") {
      device_id = record.device_id;
      backend = record.device_backend;
      break;
    }
  }
  const BenchRecord* l2_sweep_best = nullptr;
  for (const BenchRecord& record : results.records) {
    if (!bench::OnFigureDevice(record.device_id, device_id)) continue;
    // Which figure the record is, in the one place that says so (the gpu_* benchmarks count like
    // their CPU namesakes).
    const std::optional<bench::Figure> figure =
        bench::ClassifyRecord(record.benchmark, record.metric, record.parameters);
    if (!figure) continue;
    switch (figure->kind) {
      case bench::FigureKind::kComputePeak:
        peak[figure->scope].push_back(&record);
        break;
      case bench::FigureKind::kComputeGemm:
        gemm[figure->scope].push_back(&record);
        break;
      case bench::FigureKind::kCacheBandwidth:
        cache[figure->scope].push_back(&record);
        break;
      case bench::FigureKind::kL2Sweep:
        if (Better(record, l2_sweep_best)) l2_sweep_best = &record;
        break;
      case bench::FigureKind::kMainMemory:
        if (Better(record, triad)) triad = &record;
        break;
      case bench::FigureKind::kDeviceCopy:
        d2d.push_back(&record);
        break;
      case bench::FigureKind::kHostLink:
        host[figure->scope].push_back(&record);
        break;
      case bench::FigureKind::kNetwork:
        network[figure->scope].push_back(&record);
        break;
    }
  }

  Ceilings ceilings;
  auto add = [&](std::optional<Ceiling> ceiling) {
    if (ceiling) ceilings.all.push_back(std::move(*ceiling));
  };
  for (const auto& [precision, records] : peak) {
    const BenchRecord* best = Highest(records);
    add(FromRecord(*best, CeilingKind::kCompute, precision, "peak",
                   fmt::format("peak_fma: independent FMA chains in registers, {} threads",
                               NumberParameter(*best, "threads", 1))));
  }
  for (const auto& [precision, records] : gemm) {
    const BenchRecord* best = Highest(records);
    add(FromRecord(*best, CeilingKind::kCompute, precision, "gemm",
                   fmt::format("best of {} GEMM shape(s): m={} n={} k={}, FLOP = 2mnk",
                               records.size(), NumberParameter(*best, "m"),
                               NumberParameter(*best, "n"), NumberParameter(*best, "k"))));
  }
  const std::string main_memory = backend == "cpu" || backend.empty() ? "DRAM" : "HBM";
  if (l2_sweep_best != nullptr && cache.find("L2") == cache.end()) {
    add(FromRecord(*l2_sweep_best, CeilingKind::kMemory, "L2", "read sweep",
                   fmt::format("gpu_l2_sweep: best read bandwidth of a working set within L2 "
                               "({:.0f} bytes)",
                               NumberParameter(*l2_sweep_best, "working_set_bytes"))));
  }
  std::vector<std::pair<std::string, std::vector<const BenchRecord*>>> levels(cache.begin(),
                                                                              cache.end());
  std::sort(levels.begin(), levels.end(),
            [](const auto& a, const auto& b) { return LevelOrder(a.first) < LevelOrder(b.first); });
  for (const auto& [level, records] : levels) {
    const bool is_main_memory = LevelOrder(level) == 9;
    if (is_main_memory && (triad != nullptr || !d2d.empty())) continue;  // STREAM is the DRAM roof
    const BenchRecord* best = Highest(records);
    add(FromRecord(*best, CeilingKind::kMemory, level, "read plateau",
                   fmt::format("cache_sweep read plateau, {} thread(s), working sets {:.0f}-{:.0f} "
                               "bytes; bytes = working set read once",
                               NumberParameter(*best, "threads", 1),
                               NumberParameter(*best, "plateau_min_bytes"),
                               NumberParameter(*best, "plateau_max_bytes"))));
  }
  if (triad != nullptr) {
    add(FromRecord(*triad, CeilingKind::kMemory, main_memory, "STREAM triad",
                   fmt::format("STREAM triad a = b + s*c, 24 B/element (STREAM counting, no "
                               "write-allocate read), {} threads, {:.0f} bytes per array",
                               NumberParameter(*triad, "threads", 1),
                               NumberParameter(*triad, "array_bytes"))));
  } else if (!d2d.empty()) {
    const BenchRecord* best = LargestSize(d2d);
    add(FromRecord(*best, CeilingKind::kMemory, main_memory, "device copy",
                   fmt::format("host_transfer d2d copy, read + write counted, {:.0f} bytes",
                               NumberParameter(*best, "bytes"))));
  }
  for (const std::string direction : {"h2d", "d2h"}) {
    const auto it = host.find(direction);
    if (it == host.end()) continue;
    const BenchRecord* best = LargestSize(it->second);
    std::string memory = StringParameter(*best, "memory");
    add(FromRecord(*best, CeilingKind::kHostLink, direction, "copy",
                   fmt::format("host_transfer {} at the largest size, {:.0f} bytes{}", direction,
                               NumberParameter(*best, "bytes"),
                               memory.empty() ? "" : ", " + memory + " host memory")));
  }
  for (const auto& [op, records] : network) {
    const BenchRecord* best = LargestSize(records);
    add(FromRecord(
        *best, CeilingKind::kNetwork, op, "busbw",
        fmt::format("collectives {} bus bandwidth (nccl-tests factor) at the largest "
                    "size, {:.0f} bytes, {} ranks",
                    op, NumberParameter(*best, "bytes"), NumberParameter(*best, "ranks"))));
  }
  return ceilings;
}

std::vector<Ceiling> CeilingsFromSpec(const spec::SpecSheet& sheet) {
  std::vector<Ceiling> out;
  auto make = [&](CeilingKind kind, std::string scope, std::string metric, double value) {
    Ceiling ceiling;
    ceiling.kind = kind;
    ceiling.source = CeilingSource::kSpec;
    ceiling.scope = std::move(scope);
    ceiling.variant = "spec";
    ceiling.value = value;
    ceiling.recorded_value = value;
    ceiling.recorded_unit = kind == CeilingKind::kCompute ? "FLOP/s" : "B/s";
    ceiling.benchmark = "spec";
    ceiling.metric = std::move(metric);
    ceiling.basis = "datasheet: " + sheet.source;
    out.push_back(std::move(ceiling));
  };
  for (const auto& [precision, flops] : sheet.peak_flops_per_second) {
    if (flops > 0) {
      make(CeilingKind::kCompute, precision, "peak_flops_per_second." + precision, flops);
    }
  }
  if (sheet.memory_bandwidth_bytes_per_second > 0) {
    make(CeilingKind::kMemory, "HBM", "memory.bandwidth_bytes_per_second",
         sheet.memory_bandwidth_bytes_per_second);
  }
  if (sheet.host_link) {
    if (sheet.host_link->rx_bytes_per_second > 0) {
      make(CeilingKind::kHostLink, "h2d", "host_link.rx_bytes_per_second",
           sheet.host_link->rx_bytes_per_second);
    }
    if (sheet.host_link->tx_bytes_per_second > 0) {
      make(CeilingKind::kHostLink, "d2h", "host_link.tx_bytes_per_second",
           sheet.host_link->tx_bytes_per_second);
    }
  }
  if (sheet.network_link && sheet.network_link->tx_bytes_per_second > 0) {
    make(CeilingKind::kNetwork, "link", "network_link.tx_bytes_per_second",
         sheet.network_link->tx_bytes_per_second);
  }
  return out;
}

namespace {

const Ceiling* Find(const std::vector<Ceiling>& all, CeilingKind kind, std::string_view scope,
                    CeilingSource source, std::string_view variant = {}) {
  for (const Ceiling& ceiling : all) {
    if (ceiling.kind == kind && ceiling.scope == scope && ceiling.source == source &&
        (variant.empty() || ceiling.variant == variant)) {
      return &ceiling;
    }
  }
  return nullptr;
}

}  // namespace

const Ceiling* Ceilings::Compute(std::string_view precision) const {
  // The higher of the measured peak and GEMM: a GEMM above the "peak" means the peak kernel was
  // disturbed or undercounts, and the roof must not sit below a measured point.
  const Ceiling* peak =
      Find(all, CeilingKind::kCompute, precision, CeilingSource::kMeasured, "peak");
  const Ceiling* gemm =
      Find(all, CeilingKind::kCompute, precision, CeilingSource::kMeasured, "gemm");
  if (peak != nullptr && gemm != nullptr) {
    if (peak->stable != gemm->stable) return peak->stable ? peak : gemm;  // stable first
    return gemm->value > peak->value ? gemm : peak;
  }
  if (peak != nullptr) return peak;
  if (gemm != nullptr) return gemm;
  return Find(all, CeilingKind::kCompute, precision, CeilingSource::kSpec);
}

const Ceiling* Ceilings::FastestCompute() const {
  const Ceiling* best = nullptr;
  for (CeilingSource source : {CeilingSource::kMeasured, CeilingSource::kSpec}) {
    for (const Ceiling& ceiling : all) {
      if (ceiling.kind == CeilingKind::kCompute && ceiling.source == source &&
          (best == nullptr || ceiling.value > best->value)) {
        best = &ceiling;
      }
    }
    if (best != nullptr) return best;
  }
  return nullptr;
}

const Ceiling* Ceilings::NearestWiderCompute(std::string_view precision) const {
  const int width = PrecisionBits(precision);
  if (width <= 0) return nullptr;
  const Ceiling* nearest = nullptr;
  int nearest_bits = 0;
  for (const Ceiling& ceiling : all) {
    if (ceiling.kind != CeilingKind::kCompute || ceiling.scope == precision) continue;
    const int bits = PrecisionBits(ceiling.scope);
    if (bits < width) continue;
    // The roof of that precision as Compute() chooses it (measured before spec, stable first).
    const Ceiling* roof = Compute(ceiling.scope);
    if (roof == nullptr) continue;
    if (nearest == nullptr || bits < nearest_bits) {
      nearest = roof;
      nearest_bits = bits;
    }
  }
  return nearest;
}

int PrecisionBits(std::string_view precision) {
  if (precision == "fp64") return 64;
  if (precision == "fp32" || precision == "int32") return 32;
  if (precision == "tf32") return 19;
  if (precision == "bf16" || precision == "fp16") return 16;
  if (precision == "fp8" || precision == "int8") return 8;
  return 0;
}

const Ceiling* Ceilings::Memory(std::string_view level) const {
  if (auto* c = Find(all, CeilingKind::kMemory, level, CeilingSource::kMeasured)) return c;
  return Find(all, CeilingKind::kMemory, level, CeilingSource::kSpec);
}

const Ceiling* Ceilings::MainMemory() const {
  for (const char* level : {"HBM", "DRAM"}) {
    if (auto* c = Find(all, CeilingKind::kMemory, level, CeilingSource::kMeasured)) return c;
  }
  for (const Ceiling& ceiling : all) {
    if (ceiling.kind == CeilingKind::kMemory && ceiling.source == CeilingSource::kSpec) {
      return &ceiling;
    }
  }
  return nullptr;
}

const Ceiling* Ceilings::HostLink(std::string_view direction) const {
  if (auto* c = Find(all, CeilingKind::kHostLink, direction, CeilingSource::kMeasured)) return c;
  return Find(all, CeilingKind::kHostLink, direction, CeilingSource::kSpec);
}

const Ceiling* Ceilings::Network() const {
  if (auto* c = Find(all, CeilingKind::kNetwork, "all_reduce", CeilingSource::kMeasured)) {
    return c;
  }
  const Ceiling* best = nullptr;
  for (CeilingSource source : {CeilingSource::kMeasured, CeilingSource::kSpec}) {
    for (const Ceiling& ceiling : all) {
      if (ceiling.kind == CeilingKind::kNetwork && ceiling.source == source &&
          (best == nullptr || ceiling.value > best->value)) {
        best = &ceiling;
      }
    }
    if (best != nullptr) return best;
  }
  return nullptr;
}

std::vector<const Ceiling*> Ceilings::MeasuredMemoryLevels() const {
  std::vector<const Ceiling*> levels;
  for (const Ceiling& ceiling : all) {
    if (ceiling.kind == CeilingKind::kMemory && ceiling.source == CeilingSource::kMeasured) {
      levels.push_back(&ceiling);
    }
  }
  std::stable_sort(levels.begin(), levels.end(), [](const Ceiling* a, const Ceiling* b) {
    return LevelOrder(a->scope) < LevelOrder(b->scope);
  });
  return levels;
}

std::string FormatFlops(double flops_per_second) { return Scaled(flops_per_second, "FLOP/s"); }
std::string FormatBandwidth(double bytes_per_second) { return Scaled(bytes_per_second, "B/s"); }
std::string FormatCeilingValue(const Ceiling& ceiling) {
  if (ceiling.kind != CeilingKind::kCompute) return FormatBandwidth(ceiling.value);
  return ceiling.scope == "int8" ? Scaled(ceiling.value, "OP/s") : FormatFlops(ceiling.value);
}
std::string FormatBytes(double bytes) { return Scaled(bytes, "B"); }

std::string FormatSeconds(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude >= 1) return fmt::format("{:.4g} s", seconds);
  if (magnitude >= 1e-3) return fmt::format("{:.4g} ms", seconds * 1e3);
  if (magnitude >= 1e-6) return fmt::format("{:.4g} us", seconds * 1e6);
  return fmt::format("{:.4g} ns", seconds * 1e9);
}

}  // namespace xpuperf::roofline

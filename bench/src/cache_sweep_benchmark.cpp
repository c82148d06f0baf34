#include "cache_sweep_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "plateau.h"
#include "read_kernel.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/core/cpuinfo.h"

namespace xpuperf::bench {
namespace {

constexpr uint64_t kKiB = 1024;

struct AlignedDelete {
  void operator()(double* p) const { std::free(p); }
};

uint64_t LargestCache(const Topology& topology) {
  uint64_t largest = 0;
  for (const CacheLevel& cache : topology.caches) largest = std::max(largest, cache.size_bytes);
  return largest;
}

// Working sets from min_bytes to max_bytes, steps_per_octave per doubling, rounded to 64 bytes.
std::vector<uint64_t> SweepSizes(uint64_t min_bytes, uint64_t max_bytes, int steps_per_octave) {
  std::vector<uint64_t> sizes;
  const double factor = std::pow(2.0, 1.0 / steps_per_octave);
  for (double size = static_cast<double>(min_bytes);
       size <= static_cast<double>(max_bytes) * 1.0001; size *= factor) {
    const uint64_t rounded = std::max<uint64_t>(64, static_cast<uint64_t>(size) / 64 * 64);
    if (sizes.empty() || rounded != sizes.back()) sizes.push_back(rounded);
  }
  return sizes;
}

class CacheSweepBenchmark final : public Benchmark {
 public:
  explicit CacheSweepBenchmark(std::string root) : root_(std::move(root)) {}
  std::string name() const override { return "cache_sweep"; }
  Component component() const override { return Component::kMemory; }
  std::string description() const override {
    return "read bandwidth of one pinned thread over working sets up to >= 4x the LLC; plateaus "
           "named from hwloc cache sizes";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    return ParameterSchema{IntegerParameter("min_kib", 4, 1, double(1 << 30)),
                           // null default: 4x the largest cache of the topology.
                           IntegerParameter("max_kib", nullptr, 1, double(1 << 30)),
                           IntegerParameter("steps_per_octave", 2, 1, 16)};
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"min_kib", 4}, {"steps_per_octave", 2}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no cache_sweep kernel for backend '" + device.backend + "'");
    }
    if (LargestCache(device.topology) == 0 && !point.contains("max_kib")) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no cache sizes in the topology to size the sweep");
    }
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    const Topology empty;
    const Topology& topology = context.device != nullptr ? context.device->topology : empty;
    const uint64_t min_bytes = point.value("min_kib", uint64_t{4}) * kKiB;
    const uint64_t max_bytes = point.contains("max_kib")
                                   ? point.value("max_kib", uint64_t{0}) * kKiB
                                   : 4 * LargestCache(topology);
    const int steps = point.value("steps_per_octave", 2);
    if (min_bytes < 64 || max_bytes < min_bytes || steps < 1 || steps > 16) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cache_sweep: need 0 < min_kib <= max_kib and 1 <= steps_per_octave <= 16");
    }
    const uint64_t memory = context.device != nullptr ? context.device->memory_bytes : 0;
    if (memory > 0 && max_bytes > memory / 2) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("cache_sweep: max_kib {} does not fit in half of the {} MiB of "
                                   "memory",
                                   max_bytes / kKiB, memory >> 20));
    }
    XPUPERF_ASSIGN_OR_RETURN(const CpuInfo info, ReadCpuInfo(root_));
    const SimdLevel level = BestSimdLevel(info.cpus.front().flags);
    // One thread: the plateaus are then the per-core cache sizes hwloc reports per instance.
    const PinnedOpenMpTeam team(1);
    // 64-byte aligned, so no vector load straddles two cache lines (that halves L1 bandwidth).
    const size_t elements = max_bytes / sizeof(double);
    std::unique_ptr<double[], AlignedDelete> storage(
        static_cast<double*>(std::aligned_alloc(64, (elements * sizeof(double) + 63) / 64 * 64)));
    if (storage == nullptr) {
      return MakeError(
          ErrorCode::kUnavailable,
          fmt::format("cache_sweep: cannot allocate {} KiB for the sweep", max_bytes / kKiB));
    }
    const std::span<double> buffer(storage.get(), elements);
    FillReadPattern(buffer);

    std::vector<Measurement> out;
    std::vector<SweepPoint> sweep;
    for (const uint64_t bytes : SweepSizes(min_bytes, max_bytes, steps)) {
      const std::span<const double> data(buffer.data(), bytes / sizeof(double));
      volatile double sink = 0;
      const auto run = [&](int64_t repetitions) {
        double sum = 0;
        for (int64_t r = 0; r < repetitions; ++r) sum = SumForBandwidth(level, data);
        sink = sum;
      };
      XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                               CollectSamples(*context.queue, context.sampling, run));
      if (sink != ExpectedReadSum(data.size())) {
        return MakeError(
            ErrorCode::kInternal,
            fmt::format("cache_sweep verification failed at {} bytes: sum {:.17g}, "
                        "expected {:.17g}",
                        bytes, static_cast<double>(sink), ExpectedReadSum(data.size())));
      }
      Measurement m = MakeThroughput(name(), "read_bandwidth", samples, static_cast<double>(bytes),
                                     false, context);
      m.parameters = {{"working_set_bytes", bytes},
                      {"threads", 1},
                      {"simd", SimdLevelName(level)},
                      {"level", LevelHolding(bytes, topology)}};
      m.formula =
          fmt::format("bytes = working set {} read once per repetition; ", bytes) + m.formula;
      sweep.push_back({bytes, m.value});
      out.push_back(std::move(m));
    }
    std::vector<Plateau> plateaus = FindPlateaus(sweep, PlateauOptions{});
    NamePlateaus(plateaus, topology);
    for (const Plateau& plateau : plateaus) {
      Measurement m = out[(plateau.first + plateau.last) / 2];
      m.metric = plateau.level + "_read_bandwidth";
      m.value = plateau.median_bandwidth;
      m.parameters = {{"plateau_min_bytes", plateau.min_bytes},
                      {"plateau_max_bytes", plateau.max_bytes},
                      {"plateau_points", plateau.last - plateau.first + 1},
                      {"level", plateau.level},
                      {"threads", 1},
                      {"statistics_of", "the sweep point in the middle of the plateau"}};
      m.formula = fmt::format(
          "median read bandwidth of the {} sweep points within +-5% between "
          "{} and {} bytes; level from the cache holding their geometric "
          "middle",
          plateau.last - plateau.first + 1, plateau.min_bytes, plateau.max_bytes);
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  std::string root_;
};

}  // namespace

std::unique_ptr<Benchmark> MakeCacheSweepBenchmark(std::string root) {
  return std::make_unique<CacheSweepBenchmark>(std::move(root));
}

}  // namespace xpuperf::bench

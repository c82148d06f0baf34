#include "stream_benchmark.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/stream.h"
#include "xpuperf/bench/threads.h"

namespace xpuperf::bench {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// Doubles left uninitialised, so the first write happens in the OpenMP first-touch loop on the
// thread that will use the page. 2 MiB aligned and advised as huge pages (fewer TLB misses over
// hundreds of MiB), with each array shifted by a different multiple of 64 bytes so that a[i], b[i]
// and c[i] do not share the same address bits modulo 4 KiB (4K aliasing stalls loads behind
// stores).
class StreamArray {
 public:
  StreamArray(size_t n, int index) : size_(n) {
    const size_t offset = static_cast<size_t>(index) * 64 * 3;
    const size_t bytes = (n * sizeof(double) + offset + kHugePage - 1) / kHugePage * kHugePage;
    base_ = static_cast<char*>(std::aligned_alloc(kHugePage, bytes));
    if (base_ == nullptr) return;  // ok() is false: the caller reports it
    madvise(base_, bytes, MADV_HUGEPAGE);
    data_ = reinterpret_cast<double*>(base_ + offset);
  }
  bool ok() const { return base_ != nullptr; }
  ~StreamArray() { std::free(base_); }
  StreamArray(const StreamArray&) = delete;
  StreamArray& operator=(const StreamArray&) = delete;
  std::span<double> span() { return {data_, size_}; }

 private:
  static constexpr size_t kHugePage = size_t{2} << 20;
  char* base_ = nullptr;
  double* data_ = nullptr;
  size_t size_;
};

class StreamBenchmark final : public Benchmark {
 public:
  std::string name() const override { return "stream"; }
  Component component() const override { return Component::kMemory; }
  std::string description() const override {
    return "STREAM copy/scale/add/triad (doubles, arrays >= 4x all caches); STREAM bytes and "
           "write-allocate-aware bytes";
  }
  std::optional<ParameterSchema> parameter_schema() const override {
    return ParameterSchema{ChoiceParameter("kernel", "triad", {"copy", "scale", "add", "triad"}),
                           // null default: sized to 4x the caches, and recorded as array_mib.
                           IntegerParameter("array_mib", nullptr, 1, double(1 << 30))};
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {
        {{"kernel", "copy"}}, {{"kernel", "scale"}}, {{"kernel", "add"}}, {{"kernel", "triad"}}};
  }
  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    if (device.backend != "cpu") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no stream kernel for backend '" + device.backend + "'");
    }
    XPUPERF_RETURN_IF_ERROR(ParseStreamKernel(point.value("kernel", "triad")));
    return Status::Ok();
  }

  Result<std::vector<Measurement>> Run(const nlohmann::json& point, RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const StreamKernel kernel,
                             ParseStreamKernel(point.value("kernel", "triad")));
    const Topology empty;
    const Topology& topology = context.device != nullptr ? context.device->topology : empty;
    const uint64_t array_bytes = point.contains("array_mib")
                                     ? point.value("array_mib", uint64_t{0}) * kMiB
                                     : StreamArrayBytesFor(topology);
    const uint64_t memory = context.device != nullptr ? context.device->memory_bytes : 0;
    if (array_bytes < 8 || (memory > 0 && 3 * array_bytes > memory / 2)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       fmt::format("stream: 3 arrays of {} MiB do not fit in half of the {} MiB "
                                   "of memory",
                                   array_bytes / kMiB, memory / kMiB));
    }
    const size_t n = array_bytes / sizeof(double);
    const PinnedOpenMpTeam team(context.threads);
    const int threads = team.size();
    StreamArray a(n, 0), b(n, 1), c(n, 2);
    if (!a.ok() || !b.ok() || !c.ok()) {
      return MakeError(
          ErrorCode::kUnavailable,
          fmt::format("stream: cannot allocate 3 arrays of {} MiB", array_bytes / kMiB));
    }
    InitStreamArrays(a.span(), b.span(), c.span(), threads);
    const auto run = [&](int64_t repetitions) {
      for (int64_t r = 0; r < repetitions; ++r) {
        RunStreamKernel(kernel, a.span(), b.span(), c.span(), threads);
      }
    };
    XPUPERF_ASSIGN_OR_RETURN(const TimedSamples samples,
                             CollectSamples(*context.queue, context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(VerifyStreamKernel(kernel, a.span(), b.span(), c.span()));

    const std::string kernel_name(StreamKernelName(kernel));
    const double elements = static_cast<double>(n);
    std::vector<Measurement> out;
    for (const bool write_allocate : {false, true}) {
      const double per_element =
          write_allocate ? WriteAllocateBytesPerElement(kernel) : StreamBytesPerElement(kernel);
      Measurement m = MakeThroughput(
          name(), kernel_name + (write_allocate ? "_bandwidth_write_allocate" : "_bandwidth"),
          samples, per_element * elements, false, context);
      m.parameters = point;
      m.parameters["kernel"] = kernel_name;
      m.parameters["array_bytes"] = array_bytes;
      m.parameters["threads"] = threads;
      m.parameters["byte_counting"] = write_allocate ? "write_allocate" : "stream";
      m.flops_per_repetition = StreamFlopsPerElement(kernel) * elements;
      m.formula = fmt::format("bytes = {} B/element ({}) x {} elements = {:.6g}; ", per_element,
                              write_allocate ? "STREAM + destination read for write-allocate"
                                             : "STREAM counting",
                              n, per_element * elements) +
                  m.formula;
      out.push_back(std::move(m));
    }
    return out;
  }
};

}  // namespace

uint64_t StreamArrayBytesFor(const Topology& topology) {
  uint64_t caches = 0;
  for (const CacheLevel& cache : topology.caches) {
    caches += cache.size_bytes * static_cast<uint64_t>(std::max(cache.instances, 1));
  }
  return std::max<uint64_t>(4 * caches, 16 * kMiB);
}

std::unique_ptr<Benchmark> MakeStreamBenchmark() { return std::make_unique<StreamBenchmark>(); }

}  // namespace xpuperf::bench

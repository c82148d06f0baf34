// CompileCheck (xpuperf/pjrt_bench/compile_check.h): the default points' programs, compiled for a
// topology.
#include "xpuperf/pjrt_bench/compile_check.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "programs.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/pjrt/discovery.h"
#include "xpuperf/pjrt/topology.h"

namespace xpuperf::pjrt_bench {
namespace {

struct Program {
  std::string benchmark;
  std::string point;
  bool collective = false;  // over every device of the topology
  std::function<std::string(int replicas)> text;
};

// The default sweeps' points (gemm_benchmark.cpp, stream_benchmark.cpp, ...).
std::vector<Program> DefaultPrograms() {
  std::vector<Program> programs;
  struct Gemm {
    ElementType in, out;
    int64_t m, n, k;
  };
  for (const Gemm& g : {Gemm{ElementType::kF32, ElementType::kF32, 1024, 1024, 1024},
                        Gemm{ElementType::kBF16, ElementType::kBF16, 1024, 1024, 1024},
                        Gemm{ElementType::kS8, ElementType::kS32, 1024, 1024, 1024},
                        Gemm{ElementType::kBF16, ElementType::kBF16, 256, 4096, 4096}}) {
    programs.push_back(
        {"pjrt_gemm",
         fmt::format("precision={} m={} n={} k={}", pjrt::PrecisionName(g.in), g.m, g.n, g.k),
         false, [g](int) { return GemmProgram(g.m, g.n, g.k, g.in, g.out); }});
  }
  constexpr int64_t kStreamElements = int64_t{1} << 25;
  for (StreamKernel kernel :
       {StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad}) {
    programs.push_back(
        {"pjrt_stream",
         fmt::format("kernel={} elements={}", bench::StreamKernelName(kernel), kStreamElements),
         false,
         [kernel](int) { return StreamProgram(kernel, kStreamElements, ElementType::kF32); }});
  }
  for (CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
        CollectiveKind::kAllToAll, CollectiveKind::kCollectivePermute}) {
    constexpr int64_t kElements = (int64_t{1} << 20) / 4;  // 1 MiB of f32
    programs.push_back({"pjrt_collectives",
                        fmt::format("op={} bytes={}", CollectiveKindName(kind), 4 * kElements),
                        true, [kind](int replicas) {
                          return CollectiveProgram(kind, kElements, ElementType::kF32, replicas);
                        }});
  }
  for (bool causal : {false, true}) {
    programs.push_back(
        {"pjrt_attention",
         fmt::format("batch=1 heads=8 seq_len=1024 head_dim=64 causal={}", causal), false,
         [causal](int) { return AttentionProgram(1, 8, 1024, 64, ElementType::kBF16, causal); }});
  }
  programs.push_back({"pjrt_dispatch", "", false, [](int) { return DispatchProgram(); }});
  return programs;
}

std::optional<double> CostOf(const std::vector<pjrt::NamedValue>& cost, const char* name) {
  for (const pjrt::NamedValue& value : cost) {
    if (value.name != name) continue;
    if (const auto* f = std::get_if<float>(&value.value)) return *f;
    if (const auto* i = std::get_if<int64_t>(&value.value)) return static_cast<double>(*i);
  }
  return std::nullopt;
}

}  // namespace

int CompileCheckReport::failures() const {
  int failed = 0;
  for (const CompileCheckRow& row : rows) {
    failed += row.error.empty() || row.error.rfind("skipped: ", 0) == 0 ? 0 : 1;
  }
  return failed;
}

namespace {

// A plugin that hangs while it loads (in its constructors or GetPjrtApi) must not leave the
// command deaf to SIGINT/SIGTERM. The load runs on a thread of its own; a signal while it has not
// returned ends the process at once with 128 + signal: foreign code cannot be unwound, and a
// normal exit could wait for ever on the loader's lock that the hung load holds.
Result<std::shared_ptr<pjrt::Plugin>> LoadCancellable(const std::string& path) {
  struct Pending {
    std::mutex mutex;
    std::condition_variable done_cv;
    std::optional<Result<std::shared_ptr<pjrt::Plugin>>> result;
  };
  auto pending = std::make_shared<Pending>();
  std::thread([pending, path] {
    auto loaded = pjrt::Plugin::Load(path);
    std::lock_guard lock(pending->mutex);
    pending->result.emplace(std::move(loaded));
    pending->done_cv.notify_one();
  }).detach();
  std::unique_lock lock(pending->mutex);
  while (!pending->done_cv.wait_for(lock, std::chrono::milliseconds(50),
                                    [&] { return pending->result.has_value(); })) {
    if (CancellationRequested()) {
      std::fprintf(
          stderr,
          "xpuperf bench compile: error: interrupted while the PJRT plugin %s was loading (it "
          "has not returned)\n",
          path.c_str());
      std::fflush(stdout);
      std::_Exit(CancellationExitCode());
    }
  }
  return std::move(*pending->result);
}

}  // namespace

Result<CompileCheckReport> CompileCheck(const std::string& plugin_path,
                                        const std::string& topology) {
  // libtpu asks a cloud metadata server for the host's TPU before anything else and retries for
  // minutes where there is none (pjrt/probe.h); compile-only needs no such answer. Nor does it
  // open a chip, so it need not take libtpu's one-process-per-host lock (/tmp/libtpu_lockfile):
  // it runs next to a job that holds the TPU, or next to another libtpu process.
  XPUPERF_ASSIGN_OR_RETURN(
      const pjrt::PluginLocation location,
      pjrt::ResolvePlugin(plugin_path, pjrt::DiscoveryEnvironment::FromProcess()));
  if (pjrt::KindFromPath(location.path) == "tpu") {
    setenv("TPU_SKIP_MDS_QUERY", "1", /*overwrite=*/0);
    setenv("ALLOW_MULTIPLE_LIBTPU_LOAD", "1", /*overwrite=*/0);
  }
  XPUPERF_ASSIGN_OR_RETURN(std::shared_ptr<pjrt::Plugin> plugin, LoadCancellable(location.path));
  XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<pjrt::Topology> described,
                           pjrt::Topology::Create(plugin, topology));
  CompileCheckReport report;
  report.plugin = location.path;
  report.topology = topology;
  report.platform = described->platform_name();
  report.device_kind = described->device_kind();
  report.devices = static_cast<int>(described->device_ids().size());
  for (const Program& program : DefaultPrograms()) {
    CompileCheckRow row;
    row.benchmark = program.benchmark;
    row.point = program.point;
    row.replicas = program.collective ? report.devices : 1;
    if (program.collective && report.devices < 2) {
      row.error = "skipped: a collective needs 2 or more devices; the topology has 1";
      report.rows.push_back(std::move(row));
      continue;
    }
    Result<pjrt::CompiledProgram> compiled =
        described->Compile(program.text(row.replicas), row.replicas);
    if (!compiled.ok()) {
      row.error = compiled.error().message;
    } else {
      if (compiled->has_memory) {
        row.generated_code_bytes = compiled->memory.generated_code_bytes;
        row.argument_bytes = compiled->memory.argument_bytes;
        row.output_bytes = compiled->memory.output_bytes;
        row.temp_bytes = compiled->memory.temp_bytes;
      }
      row.flops = CostOf(compiled->cost_analysis, "flops");
    }
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace xpuperf::pjrt_bench

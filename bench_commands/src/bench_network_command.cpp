// `xpuperf bench network`: validates the options, then either starts mpirun (--ranks) or, as one
// rank of an MPI job, runs the collectives (MPI on the CPUs, or NCCL with one GPU per rank); rank 0
// prints the table and writes the results.
#include "xpuperf/bench_commands/bench_network_command.h"

#include <fmt/format.h>

#include <ostream>

#include "xpuperf/collectives/mpirun.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/core/units_text.h"

#ifdef XPUPERF_HAVE_MPI
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <utility>

#include "xpuperf/bench/results.h"
#include "xpuperf/bench/threads.h"
#include "xpuperf/collectives/element_type.h"
#include "xpuperf/collectives/mpi_collectives.h"
#include "xpuperf/collectives/mpi_rank_group.h"
#include "xpuperf/collectives/network_report.h"
#include "xpuperf/collectives/size_sweep.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/cpu/cpu_backend.h"
#include "xpuperf/cuda_bench/nccl_over_ranks.h"
#endif

namespace xpuperf::bench_commands {
namespace {

// Under mpirun every rank checks the options; only rank 0 (or a process outside mpirun) says why
// it stops.
int Fail(const Error& error, std::ostream& err) {
  if (collectives::LauncherRank() <= 0)
    err << "xpuperf bench network: error: " << error.message << "\n";
  return ExitCodeFor(error);
}

#ifdef XPUPERF_HAVE_MPI
namespace co = xpuperf::collectives;

struct Plan {
  std::vector<co::CollectiveOp> ops;
  std::vector<int64_t> sizes;
  co::TimingOptions timing;
  co::CollectiveVariant variant;  // dtype and redop; in_place set per run
};

Result<Plan> MakePlan(const BenchNetworkOptions& options) {
  Plan plan;
  co::SizeSweepSpec spec;
  spec.begin = options.begin;
  spec.end = options.end;
  spec.factor = options.factor;
  spec.increment = options.increment;
  XPUPERF_ASSIGN_OR_RETURN(plan.sizes, co::MakeSizeSweep(spec));
  for (const std::string& name : options.ops) {
    XPUPERF_ASSIGN_OR_RETURN(const co::CollectiveOp op, co::ParseCollective(name));
    plan.ops.push_back(op);
  }
  if (plan.ops.empty()) plan.ops = co::AllCollectives();
  XPUPERF_ASSIGN_OR_RETURN(plan.variant.dtype, co::ParseDataType(options.dtype));
  XPUPERF_ASSIGN_OR_RETURN(plan.variant.redop, co::ParseReduceOp(options.redop));
  if (options.iterations < 1 || options.samples < 1 || options.warmup < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--iters and --samples must be at least 1, --warmup at least 0");
  }
  if (options.backend != "mpi" && options.backend != "nccl") {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--backend {}: expected mpi or nccl", options.backend));
  }
  if (options.ranks == 1 || options.ranks < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--ranks {}: collectives need at least 2 ranks", options.ranks));
  }
  // --ranks starts that many processes on this host: bounded as --threads is (4 x the CPUs this
  // process may use, at least 2), so a typo cannot fork thousands of processes.
  const int max_ranks = std::max(2, 4 * static_cast<int>(bench::AllowedCpus().size()));
  if (options.ranks > max_ranks) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("--ranks {}: at most {} on this host (4 x the CPUs this process "
                                 "may use)",
                                 options.ranks, max_ranks));
  }
  // Bounded so that a run ends in reasonable time (and each sample checks for Ctrl-C).
  if (options.iterations > 1000000 || options.samples > 100000 || options.warmup > 1000000) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--iters and --warmup must be at most 1000000, --samples at most 100000");
  }
  plan.timing.iterations = options.iterations;
  plan.timing.samples = options.samples;
  plan.timing.warmup_iterations = options.warmup;
  plan.timing.check_every_sample = options.check;
  return plan;
}

Result<bench::RunInfo> MakeRunInfo() {
  bench::RunInfo run;
  BackendOptions backend_options;
  XPUPERF_ASSIGN_OR_RETURN(auto backend, cpu::CreateCpuBackend(backend_options));
  if (!backend->devices().empty()) run.device = backend->devices().front();
  run.host = HostName();
  run.suite = "network";
  run.timestamp_ns = SystemClock::Instance().WallNs();
  run.run_id = bench::MakeRunId(run.timestamp_ns, run.host);
  return run;
}

constexpr const char* kFormulaLine =
    "algbw = S / time; busbw = algbw x factor (all_reduce 2(n-1)/n; all_gather, reduce_scatter, "
    "all_to_all (n-1)/n; broadcast, send_recv 1); GB/s = 1e9 B/s";

// One placement of one size of one collective; kUnsupported: this placement is not measured.
using RunOne =
    std::function<Result<co::CollectiveResult>(co::CollectiveOp, int64_t, bool in_place)>;

// More ranks per host than the host has CPUs: ranks wait for a core, so the times measure that as
// much as the network. Empty when every rank can have a core.
std::string Oversubscription(const co::MpiSession& mpi) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int per_host = (mpi.ranks() + mpi.hosts() - 1) / std::max(1, mpi.hosts());
  if (cpus <= 0 || per_host <= cpus) return {};
  return fmt::format(
      "oversubscribed: {} ranks per host on {} CPUs share cores, so the times include waiting for "
      "a core, not only the network",
      per_host, cpus);
}

// What the MPI run adds to a plain collective for this datatype and reduction.
std::string VariantNotes(const co::CollectiveVariant& v) {
  std::string notes;
  if (v.dtype == co::DataType::kHalf || v.dtype == co::DataType::kBfloat16) {
    notes += fmt::format(
        "# {}: MPI has no such type; 2-byte elements reduce in a user-defined MPI_Op through "
        "double, rounded to {} at each step, which the times include\n",
        co::DataTypeName(v.dtype), co::DataTypeName(v.dtype));
  }
  if (v.redop == co::ReduceOp::kAvg) {
    notes +=
        "# avg: MPI has no average; MPI_SUM, then each rank divides by the ranks, inside the "
        "timed operation\n";
  }
  notes += "# broadcast is in place only (MPI_Bcast has one buffer)\n";
  return notes;
}

// What is left of a sweep, from the points' own times: a least-squares line through (bytes, wall
// seconds) of the points so far (a fixed cost per point and a cost per byte, neither below 0)
// summed over the sizes to go. One point so far: its time per byte.
class SweepEstimate {
 public:
  void Add(double bytes, double seconds) { points_.push_back({bytes, seconds}); }
  double SecondsFor(const std::vector<double>& sizes) const {
    if (points_.empty()) return 0;
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : points_) {
      n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double denominator = n * sxx - sx * sx;
    double slope = denominator > 0 ? (n * sxy - sx * sy) / denominator : sy / std::max(sx, 1.0);
    slope = std::max(slope, 0.0);
    const double fixed = std::max((sy - slope * sx) / n, 0.0);
    double total = 0;
    for (double bytes : sizes) total += fixed + slope * bytes;
    return total;
  }

 private:
  std::vector<std::pair<double, double>> points_;
};

// Every size of every collective through run_one on all ranks; rank 0 prints the rows (and a
// progress line per point on `progress`), then writes the results when nothing was wrong.
// Oversubscribed ranks are said above the table and mark every figure unstable.
Status RunSweep(const co::MpiSession& mpi, const Plan& plan, const co::CollectivePoint& base,
                const bench::RunInfo& run, const std::string& directory, std::ostream& out,
                std::ostream& progress, const RunOne& run_one) {
  const bool root = mpi.rank() == 0;
  const std::string oversubscribed = Oversubscription(mpi);
  if (root && !oversubscribed.empty()) out << "# warning: " << oversubscribed << "\n";
  if (root) out << co::TableHeader() << std::flush;
  std::vector<co::CollectivePoint> points;
  const size_t total = plan.ops.size() * plan.sizes.size();
  std::vector<double> sizes_to_go;  // the bytes of every row not run yet, in order
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    for (int64_t bytes : plan.sizes) sizes_to_go.push_back(static_cast<double>(bytes));
  }
  SweepEstimate estimate;
  const auto start = std::chrono::steady_clock::now();
  size_t index = 0;
  for (co::CollectiveOp op : plan.ops) {
    for (int64_t bytes : plan.sizes) {
      const auto point_start = std::chrono::steady_clock::now();
      // nccl-tests' two columns: out of place, then in place.
      std::optional<co::CollectivePoint> placed[2];
      for (const bool in_place : {false, true}) {
        Result<co::CollectiveResult> result = run_one(op, bytes, in_place);
        if (!result.ok() && result.error().code == ErrorCode::kUnsupported) continue;
        if (!result.ok()) return result.error();
        if (!root) continue;
        co::CollectivePoint point = base;
        point.op = op;
        point.shape = result->shape;
        point.ranks = mpi.ranks();
        point.hosts = mpi.hosts();
        point.iterations = plan.timing.iterations;
        point.seconds_per_operation = result->seconds_per_operation;
        point.wrong = result->wrong;
        point.variant = plan.variant;
        point.variant.in_place = in_place;
        placed[in_place ? 1 : 0] = std::move(point);
      }
      ++index;
      if (!root) continue;
      const auto now = std::chrono::steady_clock::now();
      estimate.Add(static_cast<double>(bytes),
                   std::chrono::duration<double>(now - point_start).count());
      const std::vector<double> left(sizes_to_go.begin() + static_cast<long>(index),
                                     sizes_to_go.end());
      progress << fmt::format("[{}/{}] {} {} B: {} elapsed", index, total, co::CollectiveName(op),
                              bytes,
                              FormatDuration(std::chrono::duration<double>(now - start).count()));
      if (!left.empty()) {
        progress << fmt::format(", about {} left", FormatDuration(estimate.SecondsFor(left)));
      }
      progress << "\n" << std::flush;
      if (!placed[0] && !placed[1]) continue;
      out << co::TableRow(placed[0] ? &*placed[0] : nullptr, placed[1] ? &*placed[1] : nullptr)
          << std::flush;
      for (auto& point : placed) {
        if (point) points.push_back(std::move(*point));
      }
    }
  }
  if (!root) return Status::Ok();
  out << co::TableFooter(points);
  int64_t wrong = 0;
  std::vector<bench::Measurement> measurements;
  for (const co::CollectivePoint& point : points) {
    wrong += point.wrong;
    for (bench::Measurement& m : co::MakeMeasurements(point)) {
      if (!oversubscribed.empty()) bench::MarkUnstable(m, oversubscribed);
      measurements.push_back(std::move(m));
    }
  }
  if (wrong > 0) {
    return MakeError(ErrorCode::kInternal,
                     fmt::format("verification failed: {} wrong elements (see #wrong); no "
                                 "results written",
                                 wrong));
  }
  XPUPERF_RETURN_IF_ERROR(bench::WriteResultDirectory(directory, measurements, run));
  out << fmt::format("{} measurements; results in {}/\n", measurements.size(), directory);
  return Status::Ok();
}

// NCCL over the ranks, one GPU each. Without a driver, a device or NCCL on some rank, every rank
// stops and rank 0 says why: a skip, not a failure, and no result directory.
Status RunNccl(const co::MpiSession& mpi, const Plan& plan, const bench::RunInfo& run,
               const std::string& directory, std::ostream& out, std::ostream& err) {
  co::MpiRankGroup group(mpi);
  Result<std::unique_ptr<cuda_bench::NcclOverRanks>> started =
      cuda_bench::StartNcclOverRanks(group);
  if (!started.ok()) {
    if (started.error().code != ErrorCode::kUnsupported) return started.error();
    if (mpi.rank() == 0) out << "skipped: " << started.error().message << "; no results written\n";
    return Status::Ok();
  }
  cuda_bench::NcclOverRanks& nccl = **started;
  if (mpi.rank() == 0) {
    out << fmt::format(
        "# xpuperf bench network --backend nccl: {} ranks on {} host(s), one GPU per rank, {}; "
        "{}, {}; per size and placement {} warm-up operations, then {} samples of {} "
        "operations\n"
        "# time = median over samples of the slowest rank's time per operation (CUDA events); "
        "{}\n",
        mpi.ranks(), mpi.hosts(), nccl.description(), co::DataTypeName(plan.variant.dtype),
        co::ReduceOpName(plan.variant.redop), plan.timing.warmup_iterations, plan.timing.samples,
        plan.timing.iterations, kFormulaLine);
  }
  co::CollectivePoint base;
  base.benchmark = "gpu_collectives";
  base.backend = "nccl";
  base.timing_source = cuda_bench::kNcclRanksTimingSource;
  return RunSweep(mpi, plan, base, run, directory, out, err,
                  [&](co::CollectiveOp op, int64_t bytes, bool in_place) {
                    co::CollectiveVariant variant = plan.variant;
                    variant.in_place = in_place;
                    return nccl.Run(op, bytes, plan.timing, variant);
                  });
}

// Everything one rank does; rank 0 alone prints and writes. Returns rank 0's status on rank 0.
Status RunRank(const co::MpiSession& mpi, const Plan& plan, const BenchNetworkOptions& options,
               std::ostream& out, std::ostream& err) {
  const bool root = mpi.rank() == 0;
  if (mpi.ranks() < 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "collectives need at least 2 ranks (mpirun -np N with N >= 2, or --ranks N)");
  }
  bench::RunInfo run;
  std::string directory;
  Status setup = Status::Ok();
  if (root) {
    Result<bench::RunInfo> made = MakeRunInfo();
    if (made.ok()) {
      run = std::move(*made);
      directory = options.out.empty() ? "results/" + run.run_id : options.out;
      if (std::error_code error; std::filesystem::exists(directory, error)) {
        setup = MakeError(ErrorCode::kInvalidArgument, "result directory " + directory +
                                                           " already exists; choose another --out");
      }
    } else {
      setup = made.error();
    }
  }
  // Checked before any collective runs, so a bad --out costs nothing.
  if (mpi.FromRankZero(setup.ok() ? 1 : 0) == 0) {
    return root ? setup : MakeError(ErrorCode::kInvalidArgument, "rank 0 refused to start");
  }
  if (options.backend == "nccl") return RunNccl(mpi, plan, run, directory, out, err);
  XPUPERF_RETURN_IF_ERROR(co::CheckBuffersFit(mpi, plan.ops, plan.sizes, plan.variant.dtype));
  if (root) {
    out << fmt::format(
        "# xpuperf bench network: {} ranks on {} host(s), {}; {}, {}; per size and placement {} "
        "warm-up operations, then {} samples of {} operations\n"
        "# time = median over samples of the slowest rank's time per operation; {}\n{}",
        mpi.ranks(), mpi.hosts(), mpi.library(), co::DataTypeName(plan.variant.dtype),
        co::ReduceOpName(plan.variant.redop), plan.timing.warmup_iterations, plan.timing.samples,
        plan.timing.iterations, kFormulaLine, VariantNotes(plan.variant));
  }
  const co::CollectivePoint base;
  return RunSweep(mpi, plan, base, run, directory, out, err,
                  [&](co::CollectiveOp op, int64_t bytes, bool in_place) {
                    co::CollectiveVariant variant = plan.variant;
                    variant.in_place = in_place;
                    return co::RunCollective(mpi, op, bytes, plan.timing, variant);
                  });
}

int RunUnderMpi(const Plan& plan, const BenchNetworkOptions& options, std::ostream& out,
                std::ostream& err) {
  Result<std::unique_ptr<co::MpiSession>> started = co::MpiSession::Start();
  if (!started.ok()) return Fail(started.error(), err);
  const co::MpiSession& mpi = **started;
  const Status status = RunRank(mpi, plan, options, out, err);
  int code = kExitOk;
  if (!status.ok()) {
    code = ExitCodeFor(status.error());
    if (mpi.rank() == 0) err << "xpuperf bench network: error: " << status.error().message << "\n";
  }
  // Every rank leaves with rank 0's exit code, so mpirun reports one outcome.
  return static_cast<int>(mpi.FromRankZero(code));
}

int LaunchMpirun(const BenchNetworkOptions& options, std::ostream& err) {
  const std::string mpirun = co::FindMpirun();
  if (mpirun.empty()) {
    return Fail(MakeError(ErrorCode::kUnavailable, "mpirun not found (install openmpi-bin)"), err);
  }
  const std::string self = co::SelfExecutable();
  if (self.empty()) {
    return Fail(MakeError(ErrorCode::kUnavailable, "cannot find this executable to run it"), err);
  }
  if (std::error_code error; !options.out.empty() && std::filesystem::exists(options.out, error)) {
    return Fail(MakeError(ErrorCode::kInvalidArgument, "result directory " + options.out +
                                                           " already exists; choose another "
                                                           "--out"),
                err);
  }
  err.flush();
  Result<int> code =
      co::RunProgram(co::MpirunCommand(mpirun, options.ranks, self, RankArguments(options)));
  if (!code.ok()) return Fail(code.error(), err);
  return *code;
}
#endif

}  // namespace

std::vector<std::string> RankArguments(const BenchNetworkOptions& options) {
  std::vector<std::string> args = {"bench", "network", "-b", options.begin, "-e", options.end};
  if (options.factor != 0) {
    args.insert(args.end(), {"-f", std::to_string(options.factor)});
  }
  if (!options.increment.empty()) args.insert(args.end(), {"-i", options.increment});
  for (const std::string& op : options.ops) args.insert(args.end(), {"--op", op});
  args.insert(args.end(),
              {"--iters", std::to_string(options.iterations), "--warmup",
               std::to_string(options.warmup), "--samples", std::to_string(options.samples)});
  if (!options.out.empty()) args.insert(args.end(), {"--out", options.out});
  if (options.check) args.push_back("--check");
  if (options.backend != "mpi") args.insert(args.end(), {"--backend", options.backend});
  if (options.dtype != "float") args.insert(args.end(), {"-d", options.dtype});
  if (options.redop != "sum") args.insert(args.end(), {"-o", options.redop});
  return args;
}

int RunBenchNetwork(const BenchNetworkOptions& options, std::ostream& out, std::ostream& err) {
#ifndef XPUPERF_HAVE_MPI
  (void)options;
  (void)out;
  return Fail(MakeError(ErrorCode::kUnsupported, "unsupported: built without MPI"), err);
#else
  Result<Plan> plan = MakePlan(options);
  if (!plan.ok()) return Fail(plan.error(), err);
  if (co::StartedByMpiLauncher()) {
    if (options.ranks != 0) {
      return Fail(MakeError(ErrorCode::kInvalidArgument,
                            "--ranks starts mpirun itself; under mpirun, give the rank count to "
                            "mpirun -np instead"),
                  err);
    }
    return RunUnderMpi(*plan, options, out, err);
  }
  if (options.ranks == 0) {
    return Fail(MakeError(ErrorCode::kInvalidArgument,
                          "needs MPI ranks: run it under mpirun (mpirun -np 4 xpuperf bench "
                          "network ...) or pass --ranks N to start N ranks on this host"),
                err);
  }
  return LaunchMpirun(options, err);
#endif
}

}  // namespace xpuperf::bench_commands

#include "xpuperf/collectives/network_benchmark.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xpuperf/bench/result_reader.h"
#include "xpuperf/collectives/mpirun.h"

namespace xpuperf::collectives {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxRanks = 4;

// A sweep parameter given as a number or a text ("4M").
std::string TextOf(const nlohmann::json& point, const char* key, const std::string& fallback) {
  if (!point.contains(key)) return fallback;
  const nlohmann::json& value = point.at(key);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string LastLine(const std::string& text) {
  std::string line;
  std::istringstream lines(text);
  for (std::string next; std::getline(lines, next);) {
    if (!next.empty()) line = next;
  }
  return line;
}

class CollectivesBenchmark final : public bench::Benchmark {
 public:
  std::string name() const override { return "collectives"; }
  bench::Component component() const override { return bench::Component::kNetwork; }
  std::string description() const override {
    return "MPI all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv on "
           "min(CPUs, 4) ranks of this host (mpirun xpuperf bench network); latency, algbw and "
           "busbw (nccl-tests factors), verified";
  }
  std::vector<nlohmann::json> default_sweep() const override {
    return {{{"ops", "all"}, {"begin", "8"}, {"end", "8M"}, {"factor", 32}}};
  }

  Status CanRun(const Device& device, const nlohmann::json& point) const override {
#ifndef XPUPERF_HAVE_MPI
    return MakeError(ErrorCode::kUnsupported, "unsupported: built without MPI");
#endif
    XPUPERF_RETURN_IF_ERROR(ValidatePoint(point));
    if (StartedByMpiLauncher()) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: this process is an MPI rank; run `xpuperf bench network` "
                       "under mpirun for the network");
    }
    // xpuperf-full: what the `xpuperf` analyze front execs for every other command (cli/main.cpp).
    if (const fs::path self = fs::path(SelfExecutable()).filename();
        self != "xpuperf" && self != "xpuperf-full") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: the ranks run `xpuperf bench network` and this process is "
                       "not the xpuperf executable");
    }
    if (FindMpirun().empty()) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: mpirun not found (install openmpi-bin)");
    }
    if (Ranks() < 2) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: needs 2 MPI ranks and this process may use 1 CPU; run "
                       "xpuperf bench network --ranks N");
    }
    return Status::Ok();
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_RETURN_IF_ERROR(ValidatePoint(point));
    std::string pattern = (fs::temp_directory_path() / "xpuperf-collectives-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return MakeError(ErrorCode::kIo, "cannot create a temporary directory for the ranks");
    }
    const fs::path work = pattern;
    const int ranks = Ranks();
    std::vector<std::string> args = {
        "bench",     "network",
        "-b",        TextOf(point, "begin", "8"),
        "-e",        TextOf(point, "end", "8M"),
        "-f",        TextOf(point, "factor", "2"),
        "--iters",   TextOf(point, "iters", "20"),
        "--warmup",  TextOf(point, "warmup", "5"),
        "--samples", std::to_string(std::max(context.sampling.samples, 1)),
        "--out",     (work / "results").string()};
    for (const std::string& op : Ops(point)) {
      args.push_back("--op");
      args.push_back(op);
    }
    for (const char* key : {"dtype", "redop"}) {
      if (!point.contains(key)) continue;
      args.push_back(std::string(key) == "dtype" ? "-d" : "-o");
      args.push_back(TextOf(point, key, ""));
    }
    const std::vector<std::string> command =
        MpirunCommand(FindMpirun(), ranks, SelfExecutable(), args);
    Result<int> exit_code =
        RunProgram(command, (work / "stdout.txt").string(), (work / "stderr.txt").string());
    Result<std::vector<bench::Measurement>> measurements = Collect(exit_code, work, ranks);
    std::error_code ignored;
    fs::remove_all(work, ignored);
    return measurements;
  }

 private:
  static int Ranks() { return std::min(AllowedCpus(), kMaxRanks); }

  static std::vector<std::string> Ops(const nlohmann::json& point) {
    const std::string ops = TextOf(point, "ops", "all");
    std::vector<std::string> out;
    if (ops == "all") return out;  // bench network's default: every collective
    std::istringstream list(ops);
    for (std::string op; std::getline(list, op, ',');) {
      if (!op.empty()) out.push_back(op);
    }
    return out;
  }

  static Status ValidatePoint(const nlohmann::json& point) {
    for (const auto& [key, value] : point.items()) {
      if (key != "ops" && key != "begin" && key != "end" && key != "factor" && key != "iters" &&
          key != "warmup" && key != "dtype" && key != "redop") {
        return MakeError(ErrorCode::kInvalidArgument,
                         "unknown parameter '" + key +
                             "' (known: ops, begin, end, factor, iters, warmup, dtype, redop)");
      }
    }
    return Status::Ok();
  }

  static Result<std::vector<bench::Measurement>> Collect(const Result<int>& exit_code,
                                                         const fs::path& work, int ranks) {
    if (!exit_code.ok()) return exit_code.error();
    if (*exit_code != 0) {
      std::string why = LastLine(ReadText(work / "stderr.txt"));
      if (why.empty()) why = LastLine(ReadText(work / "stdout.txt"));
      return MakeError(ErrorCode::kInternal,
                       fmt::format("mpirun -np {} xpuperf bench network exited with code {}: {}",
                                   ranks, *exit_code, why));
    }
    XPUPERF_ASSIGN_OR_RETURN(bench::ResultDirectory results,
                             bench::ReadResultDirectory((work / "results").string()));
    std::vector<bench::Measurement> measurements;
    for (bench::ResultRecord& record : results.records) {
      measurements.push_back(std::move(record.measurement));
    }
    if (measurements.empty()) {
      return MakeError(ErrorCode::kInternal, "the ranks wrote no measurement");
    }
    return measurements;
  }
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeCollectivesBenchmark() {
  return std::make_unique<CollectivesBenchmark>();
}

}  // namespace xpuperf::collectives

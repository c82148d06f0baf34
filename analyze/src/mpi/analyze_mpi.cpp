// `mpirun -np K xpuperf analyze DIR`: the rank files of DIR split over the K processes (balanced by
// file size), each process reading its share in parallel over its cores, and process 0 analysing
// the whole run and printing it, exactly as one process would (the same bytes: text, --json,
// --html). What process 0 does is RunAnalyze with a directory reader that runs this protocol:
//
//   0 -> all  (broadcast)  'R' path, then per file: owner, name  -- or 'D' exit code: done
//   all       read their files; agree on the first failed file (minimum file index over ranks)
//   owner -> 0            that file's error (code, message), reported once, by process 0
//   each -> 0             else each trace of its share, in file order (trace_wire.h)
//
// The other processes wait for rank 0's next broadcast until it says 'D' and exit with its code.
// Every wait sleeps between tests (mpi_messages.h): waiting processes leave the cores to the ones
// working. SIGINT/SIGTERM (mpirun forwards them to every process) stops each process where it is.
#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <thread>

#include "xpuperf/analyze/analyze.h"
#include "xpuperf/collectives/mpi_collectives.h"
#include "xpuperf/collectives/mpi_messages.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/trace_wire.h"

namespace xpuperf::analyze {
namespace {

using collectives::MpiSession;

// Little framing helpers for the protocol's small messages (one build, one machine kind: native
// byte order).
void PutInt(std::string& out, int64_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}
void PutText(std::string& out, std::string_view text) {
  PutInt(out, static_cast<int64_t>(text.size()));
  out.append(text);
}
bool GetInt(std::string_view& in, int64_t* value) {
  if (in.size() < sizeof(*value)) return false;
  std::memcpy(value, in.data(), sizeof(*value));
  in.remove_prefix(sizeof(*value));
  return true;
}
bool GetText(std::string_view& in, std::string* text) {
  int64_t size = 0;
  if (!GetInt(in, &size) || size < 0 || static_cast<uint64_t>(size) > in.size()) return false;
  text->assign(in.substr(0, static_cast<size_t>(size)));
  in.remove_prefix(static_cast<size_t>(size));
  return true;
}

struct Share {
  std::string path;
  std::vector<std::string> files;
  std::vector<int> owners;  // owners[i]: the process that reads files[i]
};

// Largest file first to the process with the fewest bytes so far (ties: the lower rank), so that
// a run with a few large ranks still keeps every process busy.
std::vector<int> BalanceBySize(const std::vector<std::string>& files, int processes) {
  std::vector<uintmax_t> sizes(files.size(), 0);
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(files[i], ec);
    sizes[i] = ec ? 0 : size;
  }
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  std::vector<uintmax_t> load(static_cast<size_t>(processes), 0);
  std::vector<int> owners(files.size(), 0);
  for (size_t i : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    owners[i] = static_cast<int>(least);
    load[static_cast<size_t>(least)] += std::max<uintmax_t>(sizes[i], 1);
  }
  return owners;
}

std::string EncodeShare(const Share& share) {
  std::string out = "R";
  PutText(out, share.path);
  PutInt(out, static_cast<int64_t>(share.files.size()));
  for (size_t i = 0; i < share.files.size(); ++i) {
    PutInt(out, share.owners[i]);
    PutText(out, share.files[i]);
  }
  return out;
}

Result<Share> DecodeShare(std::string_view in, int processes) {
  Share share;
  int64_t count = 0;
  bool ok = GetText(in, &share.path) && GetInt(in, &count) && count >= 0;
  for (int64_t i = 0; ok && i < count; ++i) {
    int64_t owner = 0;
    std::string file;
    ok = GetInt(in, &owner) && owner >= 0 && owner < processes && GetText(in, &file);
    share.owners.push_back(static_cast<int>(owner));
    share.files.push_back(std::move(file));
  }
  if (!ok || !in.empty()) return MakeError(ErrorCode::kInternal, "malformed MPI share message");
  return share;
}

// Every process: read this process's files, agree on failures, send the traces to process 0.
// On process 0 the run (or the first failed file's error); on the others an empty run or an error
// of their own (MPI, cancellation) that they stop on.
Result<trace::TraceRun> ReadShare(const MpiSession& mpi, const Share& share) {
  std::vector<std::string> mine;
  std::vector<size_t> mine_index;
  for (size_t i = 0; i < share.files.size(); ++i) {
    if (share.owners[i] == mpi.rank()) {
      mine.push_back(share.files[i]);
      mine_index.push_back(i);
    }
  }
  // The host's cores shared by the processes on it.
  const int threads =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / mpi.local_ranks());
  std::vector<Result<trace::Trace>> read = trace::ReadTraceFiles(mine, threads);
  int64_t first_failed = INT64_MAX;
  size_t failed_local = 0;
  for (size_t k = 0; k < read.size(); ++k) {
    if (!read[k].ok()) {
      first_failed = static_cast<int64_t>(mine_index[k]);
      failed_local = k;
      break;
    }
  }
  XPUPERF_ASSIGN_OR_RETURN(const int64_t agreed, collectives::MinimumOverRanks(mpi, first_failed));
  if (agreed != INT64_MAX) {
    // One report, by process 0, of the file ReadTraceRun would have named: the first in order.
    const int owner = share.owners[static_cast<size_t>(agreed)];
    if (mpi.rank() == owner) {
      const Error& error = read[failed_local].error();
      if (owner == 0) return error;
      std::string message;
      PutInt(message, static_cast<int64_t>(error.code));
      PutText(message, error.message);
      XPUPERF_RETURN_IF_ERROR(collectives::SendBytes(mpi, 0, message));
      return trace::TraceRun{};
    }
    if (mpi.rank() != 0) return trace::TraceRun{};
    XPUPERF_ASSIGN_OR_RETURN(std::string message, collectives::ReceiveBytes(mpi, owner));
    std::string_view in = message;
    int64_t code = 0;
    Error error;
    if (!GetInt(in, &code) || code < 0 || code > static_cast<int64_t>(ErrorCode::kInternal) ||
        !GetText(in, &error.message)) {
      return MakeError(ErrorCode::kInternal, "malformed MPI error message");
    }
    error.code = static_cast<ErrorCode>(code);
    return error;
  }
  if (mpi.rank() != 0) {
    for (auto& trace : read) {
      XPUPERF_RETURN_IF_ERROR(collectives::SendBytes(mpi, 0, trace::EncodeTrace(*trace)));
      trace = MakeError(ErrorCode::kInternal, "sent");  // frees the events now
    }
    return trace::TraceRun{};
  }
  std::vector<Result<trace::Trace>> all;
  all.reserve(share.files.size());
  size_t next_local = 0;
  for (size_t i = 0; i < share.files.size(); ++i) {
    if (share.owners[i] == 0) {
      all.push_back(std::move(read[next_local++]));
      continue;
    }
    XPUPERF_ASSIGN_OR_RETURN(std::string bytes, collectives::ReceiveBytes(mpi, share.owners[i]));
    all.push_back(trace::DecodeTrace(bytes));
  }
  return trace::AssembleTraceRun(share.path, share.files, std::move(all));
}

std::string DoneMessage(int code) {
  std::string out = "D";
  PutInt(out, code);
  return out;
}

// Process 0: RunAnalyze with the directory reader above, then 'D' to the others.
int RunRankZero(const MpiSession& mpi, const AnalyzeOptions& options, std::ostream& out,
                std::ostream& err) {
  AnalyzeOptions split = options;
  split.read_directory = [&mpi](const std::string& path) -> Result<trace::TraceRun> {
    Share share;
    share.path = path;
    XPUPERF_ASSIGN_OR_RETURN(share.files, trace::ListTraceRunFiles(path));
    share.owners = BalanceBySize(share.files, mpi.ranks());
    XPUPERF_RETURN_IF_ERROR(collectives::BroadcastFromRankZero(mpi, EncodeShare(share)));
    return ReadShare(mpi, share);
  };
  const int code = RunAnalyze(split, out, err);
  if (CancellationRequested()) return code;
  if (auto done = collectives::BroadcastFromRankZero(mpi, DoneMessage(code)); !done.ok()) {
    err << "xpuperf analyze: error: " << done.error().message << "\n";
    return kExitFailure;
  }
  return code;
}

// The other processes: serve rank 0's requests until it is done; exit with its code.
int RunOtherRank(const MpiSession& mpi, std::ostream& err) {
  for (;;) {
    auto message = collectives::BroadcastFromRankZero(mpi, {});
    if (!message.ok()) {
      if (!CancellationRequested())
        err << "xpuperf analyze: error: " << message.error().message << "\n";
      return kExitFailure;
    }
    std::string_view in = *message;
    int64_t code = 0;
    if (!in.empty() && in[0] == 'D') {
      in.remove_prefix(1);
      return GetInt(in, &code) ? static_cast<int>(code) : kExitFailure;
    }
    if (in.empty() || in[0] != 'R') {
      err << "xpuperf analyze: error: malformed MPI message from rank 0\n";
      return kExitFailure;
    }
    in.remove_prefix(1);
    auto share = DecodeShare(in, mpi.ranks());
    if (!share.ok()) {
      err << "xpuperf analyze: error: " << share.error().message << "\n";
      return kExitFailure;
    }
    if (auto served = ReadShare(mpi, *share); !served.ok()) {
      if (!CancellationRequested()) {
        err << "xpuperf analyze: error: rank " << mpi.rank() << ": " << served.error().message
            << "\n";
      }
      return kExitFailure;
    }
  }
}

}  // namespace

int RunAnalyzeOverMpi(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  auto session = MpiSession::Start();
  if (!session.ok()) {
    err << "xpuperf analyze: error: launched by mpirun but MPI cannot start: "
        << session.error().message << "\n";
    return kExitFailure;
  }
  std::unique_ptr<MpiSession> mpi = std::move(session).value();
  if (mpi->ranks() == 1) return RunAnalyze(options, out, err);
  const int code =
      mpi->rank() == 0 ? RunRankZero(*mpi, options, out, err) : RunOtherRank(*mpi, err);
  // Stopped by a signal, the peers may be gone: MPI_Finalize would wait for them.
  if (CancellationRequested()) (void)mpi.release();
  return code;
}

}  // namespace xpuperf::analyze

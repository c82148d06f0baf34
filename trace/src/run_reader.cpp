// A run: one file, or a directory of per-rank files read in parallel.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/xplane.h"

namespace xpuperf::trace {
namespace {

namespace fs = std::filesystem;

bool IsTraceFileName(const std::string& name) {
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".json") || ends(".json.gz") || IsXPlaneFileName(name);
}

}  // namespace

std::optional<int> RankFromFileName(const std::string& path) {
  std::string lower = fs::path(path).filename().string();
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t at = lower.find("rank"); at != std::string::npos; at = lower.find("rank", at + 1)) {
    size_t i = at + 4;
    if (i < lower.size() && (lower[i] == '-' || lower[i] == '_')) ++i;
    size_t start = i;
    while (i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i]))) ++i;
    if (i > start && i - start < 9) return std::stoi(lower.substr(start, i - start));
  }
  return std::nullopt;
}

Result<std::vector<std::string>> ListTraceRunFiles(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) return MakeError(ErrorCode::kNotFound, path + ": no such file");
    return std::vector<std::string>{path};
  }
  std::vector<std::string> files;
  // A directory of `xpuperf capture` (manifest.json beside one folder per host): the traces are
  // in the host folders.
  const bool capture = fs::is_regular_file(fs::path(path) / "manifest.json", ec);
  std::vector<std::string> folders;
  if (capture) {
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_directory() && !entry.is_symlink()) folders.push_back(entry.path().string());
    }
  } else {
    folders.push_back(path);
  }
  for (const auto& folder : folders) {
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (!IsTraceFileName(entry.path().filename().string())) continue;
      if (entry.is_regular_file()) {
        files.push_back(entry.path().string());
      } else if (!entry.is_directory()) {
        // A FIFO would block the reader, a device never ends: named, never skipped silently.
        const char* kind = entry.is_fifo()                                      ? "a FIFO"
                           : entry.is_character_file() || entry.is_block_file() ? "a device"
                           : entry.is_socket()                                  ? "a socket"
                                                                                : "not a file";
        return MakeError(ErrorCode::kInvalidArgument,
                         entry.path().string() + ": is " + kind +
                             ", not a regular file; a trace directory holds trace files");
      }
    }
    if (ec) return MakeError(ErrorCode::kIo, folder + ": cannot list: " + ec.message());
  }
  if (files.empty()) {
    // A JAX/TensorFlow log directory (jax.profiler.trace(DIR)): its latest profile,
    // plugins/profile/<run>/ (run names are timestamps, so the largest name is the latest).
    const fs::path profiles = fs::path(path) / "plugins" / "profile";
    std::string latest;
    for (const auto& entry : fs::directory_iterator(profiles, ec)) {
      if (entry.is_directory() && entry.path().string() > latest) latest = entry.path().string();
    }
    if (!latest.empty()) return ListTraceRunFiles(latest);
    return MakeError(ErrorCode::kNotFound,
                     path + ": no trace files (*.json, *.json.gz, *.xplane.pb) in directory");
  }
  std::sort(files.begin(), files.end());
  // XLA's profilers may write both HOST.xplane.pb and its conversion HOST.trace.json.gz: the
  // XSpace is the whole of it, the JSON a lossy copy, so only the XSpace is read.
  std::erase_if(files, [&](const std::string& file) {
    constexpr std::string_view kJson = ".trace.json.gz";
    if (file.size() < kJson.size() ||
        file.compare(file.size() - kJson.size(), kJson.size(), kJson) != 0) {
      return false;
    }
    const std::string xplane = file.substr(0, file.size() - kJson.size()) + ".xplane.pb";
    return std::binary_search(files.begin(), files.end(), xplane);
  });
  return files;
}

std::vector<Result<Trace>> ReadTraceFiles(
    const std::vector<std::string>& files, int threads,
    const std::function<void(const FileReadProgress&)>& on_file_read) {
  std::vector<std::optional<Result<Trace>>> results(files.size());
  unsigned workers = threads > 0 ? static_cast<unsigned>(threads)
                                 : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, static_cast<unsigned>(files.size()));
  std::vector<uint64_t> sizes(files.size(), 0);
  FileReadProgress progress;
  progress.total = files.size();
  if (on_file_read) {
    for (size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      const uintmax_t size = fs::file_size(files[i], ec);
      sizes[i] = ec ? 0 : static_cast<uint64_t>(size);
      progress.bytes_total += sizes[i];
    }
  }
  std::mutex progress_mutex;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      results[i] = ReadTraceFile(files[i]);
      if (!on_file_read) continue;
      std::lock_guard lock(progress_mutex);
      progress.index = i;
      ++progress.done;
      progress.bytes_done += sizes[i];
      progress.file = &files[i];
      on_file_read(progress);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::vector<Result<Trace>> read;
  read.reserve(files.size());
  for (auto& result : results) read.push_back(std::move(*result));
  return read;
}

Result<TraceRun> AssembleTraceRun(const std::string& path, const std::vector<std::string>& files,
                                  std::vector<Result<Trace>> traces) {
  TraceRun run;
  for (size_t i = 0; i < files.size() && i < traces.size(); ++i) {
    if (!traces[i].ok()) return traces[i].error();
    Trace trace = std::move(traces[i]).value();
    if (!trace.has_distributed_info) {
      auto rank = RankFromFileName(fs::path(files[i]).filename().string());
      trace.rank = rank ? *rank : static_cast<int>(i);
    }
    run.ranks.push_back(std::move(trace));
  }
  std::stable_sort(run.ranks.begin(), run.ranks.end(),
                   [](const Trace& a, const Trace& b) { return a.rank < b.rank; });
  for (size_t i = 1; i < run.ranks.size(); ++i) {
    if (run.ranks[i].rank == run.ranks[i - 1].rank) {
      return MakeError(ErrorCode::kInvalidArgument,
                       path + ": two files claim rank " + std::to_string(run.ranks[i].rank) + " (" +
                           run.ranks[i - 1].source + ", " + run.ranks[i].source + ")");
    }
  }
  return run;
}

Result<TraceRun> ReadTraceRun(const std::string& path, const ReadOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) return MakeError(ErrorCode::kNotFound, path + ": no such file");
    XPUPERF_ASSIGN_OR_RETURN(Trace trace, ReadTraceFile(path));
    if (!trace.has_distributed_info) {
      if (auto rank = RankFromFileName(fs::path(path).filename().string())) trace.rank = *rank;
    }
    TraceRun run;
    run.ranks.push_back(std::move(trace));
    return run;
  }
  XPUPERF_ASSIGN_OR_RETURN(std::vector<std::string> files, ListTraceRunFiles(path));
  return AssembleTraceRun(path, files,
                          ReadTraceFiles(files, options.threads, options.on_file_read));
}

}  // namespace xpuperf::trace

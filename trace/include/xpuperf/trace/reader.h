// Reading Chrome-trace JSON (PyTorch profiler / Kineto, current and 2021 formats; JAX/XLA
// trace.json.gz) from `.json` or `.json.gz` files, or a directory of per-rank files.
//
// Timestamps: `ts` and `dur` are microseconds in every Chrome trace (the format's definition;
// Kineto and JAX both write microseconds, JAX with sub-microsecond digits). `displayTimeUnit` only
// tells a viewer how to label its axis and is recorded, not applied. The decimal text is converted
// to integer nanoseconds exactly (no double rounding), so absolute epoch timestamps keep ns
// precision.
//
// Speed and memory: an uncompressed file is mapped privately (no copy; the page cache serves it;
// the file is never written); a gzip file of 4 MiB and more is inflated on a second thread while
// the first parses, into a range whose parsed pages are handed back (resident: ~64 MiB of text, not
// the whole file); a smaller one is inflated whole into such a range first, and one whose text is
// not the size its trailer states into memory. The `traceEvents` array is cut into chunks of whole
// events that simdjson's on-demand parser walks where they lie (ParseOptions::writable_text)
// without building a DOM, and the pages of text already parsed are handed back as parsing goes.
// Each event becomes an 88-byte TraceEvent with interned strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// One file of a directory read: which (by position in the files' order), how many are done so
// far (this one included), and the bytes on disk of the files done and of all of them.
struct FileReadProgress {
  size_t index = 0;
  size_t done = 0;
  size_t total = 0;
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;
  const std::string* file = nullptr;
};

struct ReadOptions {
  int threads = 0;  // files read at once for a directory; 0 = hardware concurrency
  // Called as each file of a directory has been read, one call at a time (from the reading
  // threads, under a lock); empty: none.
  std::function<void(const FileReadProgress&)> on_file_read;
};

// Parses one trace held in memory (JSON text, not compressed). `source` names it in errors.
// Errors carry the byte offset of the problem: "trace.json: truncated at byte 1234 ...".
// `chunk_bytes`: how much event text simdjson parses at once (its index costs 4 bytes per input
// byte of a chunk, so this bounds the parser's memory).
// `release_consumed`: the caller will not read `json` again, so the pages of event text already
// parsed are returned to the system as parsing goes (madvise(MADV_DONTNEED): heap pages read as
// zeros afterwards, pages of a mapped file are read from the file again if touched
// afterwards). This keeps peak memory near the file size plus the events, not their sum.
inline constexpr size_t kDefaultChunkBytes = 1 << 20;
Result<Trace> ParseTrace(std::string_view json, std::string source,
                         size_t chunk_bytes = kDefaultChunkBytes, bool release_consumed = false);

struct ParseOptions {
  size_t chunk_bytes = kDefaultChunkBytes;
  bool release_consumed = false;
  // Where a chunk ends is first guessed (the next "}, {" after chunk_bytes) and confirmed by
  // simdjson parsing the chunk as a whole array of events; a wrong guess is undone and the chunk
  // found by scanning brackets outside strings. false = always scan (the same result, slower).
  bool guess_chunk_ends = true;
  // The caller owns the text and lets the parser write into it while a chunk is parsed (the two
  // bytes around the chunk become '[' and ']', the 64 after it spaces, all restored before the
  // chunk's parse returns):
  // chunks are then parsed where they lie instead of being copied into a padded buffer. Only for
  // text that is writable memory (ReadTraceFile's private mappings and inflate buffers).
  bool writable_text = false;
  // With writable_text: how many bytes past the text's end may be read and written (and are
  // restored) too, so that the last chunk is parsed in place as well (it needs 65).
  size_t writable_padding = 0;
};
Result<Trace> ParseTrace(std::string_view json, std::string source, const ParseOptions& options);

// Reads a file (.gz decompressed by its magic bytes, whatever its name).
Result<Trace> ReadTraceFile(const std::string& path);

// A file is a run of one rank; a directory is a distributed run of every *.json / *.json.gz file in
// it (not recursive; a capture directory with a manifest.json: the files of its host folders), read
// in parallel. Ranks come from distributedInfo.rank, else the file name
// ("rank-3", "rank3", "rank_3"), else the file's position in name order.
Result<TraceRun> ReadTraceRun(const std::string& path, const ReadOptions& options = {});

// The pieces of ReadTraceRun, for callers that split a run's files over processes (`analyze DIR`
// under MPI). ListTraceRunFiles: the files ReadTraceRun reads for `path`, in its order (a file:
// itself). ReadTraceFiles: each file read, `threads` at once (0 = hardware concurrency), results
// in the files' order. AssembleTraceRun: ranks given, ordered and checked as ReadTraceRun does
// (the first failed file's error, in the files' order; two files claiming one rank).
Result<std::vector<std::string>> ListTraceRunFiles(const std::string& path);
std::vector<Result<Trace>> ReadTraceFiles(
    const std::vector<std::string>& files, int threads = 0,
    const std::function<void(const FileReadProgress&)>& on_file_read = {});
Result<TraceRun> AssembleTraceRun(const std::string& path, const std::vector<std::string>& files,
                                  std::vector<Result<Trace>> traces);

// "rank-3", "rank_3", "rank3" in the file name (not the directories above it).
std::optional<int> RankFromFileName(const std::string& path);

// The first `bytes` (or fewer) of a file's text, gzip inflated: enough to tell what kind of file
// it is without reading it whole.
Result<std::string> ReadTextHead(const std::string& path, size_t bytes);

// Reads a whole file, decompressing gzip; used by the readers of other PyTorch exports too.
Result<std::string> ReadMaybeGzipFile(const std::string& path);

// The JSON text of a trace file: the file mapped privately and writable (copy-on-write, the file
// untouched), followed by a page of zeros, when it is not compressed (a regular, non-empty file),
// else its contents (gzip inflated) in memory. Move-only; the view stays valid
// while the object lives. Give view() to ParseTrace(..., release_consumed = true) to drop the
// pages already parsed as parsing goes.
class TraceText {
 public:
  static Result<TraceText> Load(const std::string& path);

  TraceText() = default;
  TraceText(TraceText&& other) noexcept;
  TraceText& operator=(TraceText&& other) noexcept;
  TraceText(const TraceText&) = delete;
  TraceText& operator=(const TraceText&) = delete;
  ~TraceText();

  std::string_view view() const {
    return mapped_ ? std::string_view(mapped_, text_size_) : std::string_view(owned_);
  }
  bool mapped() const { return mapped_ != nullptr; }
  // Zero bytes past view()'s end that are mapped, readable and privately writable (a mapped file
  // is followed by at least a page of them; an owned text by none): ParseOptions::writable_padding.
  size_t padding() const { return mapped_ ? mapped_size_ - text_size_ : 0; }
  // Unmaps the file or frees the text now (view() is empty afterwards).
  void Reset();

 private:
  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;  // the whole mapping: the file's pages and the zero page after them
  size_t text_size_ = 0;
  std::string owned_;
};

}  // namespace xpuperf::trace

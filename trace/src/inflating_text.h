// A .json.gz trace inflated on a second thread while the reader parses it: the decompressed text
// lives in one reserved virtual range of the size the gzip trailer states, written front to back
// by the inflater and handed back page by page by the reader (ParseTrace's release mode), so the
// resident text is the window between the two (about kWindowBytes), not the whole file. Internal
// to the trace component (reader.cpp, file_io.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace::internal {

class InflatingText {
 public:
  // How far the inflater may run ahead of the reader's released position (unless the reader
  // asks for more: one event larger than this is still read).
  static constexpr size_t kWindowBytes = size_t{64} << 20;
  // Compressed files from this size on are inflated on a second thread as they are parsed;
  // smaller ones whole, on the calling thread, before Start returns (a thread is not worth it;
  // the text still goes into the populated range, parsed in place, without a zero-filled copy).
  static constexpr size_t kThreadedFromBytes = size_t{4} << 20;

  struct Limits {
    size_t threaded_from_bytes = kThreadedFromBytes;
    size_t window_bytes = kWindowBytes;
  };
  // Starts inflating `path` when it is a gzip file whose trailer states a size within the
  // decompressed-size cap; nullptr otherwise (read it whole instead).
  static Result<std::unique_ptr<InflatingText>> Start(const std::string& path,
                                                      const Limits& limits);

  InflatingText(const InflatingText&) = delete;
  InflatingText& operator=(const InflatingText&) = delete;
  ~InflatingText();  // stops and joins the inflater

  // The whole text's range: size() bytes, readable once WaitFor says so.
  std::string_view view() const { return {data_, size_}; }
  size_t size() const { return size_; }
  // Bytes mapped past size(), zeros, readable and writable (at least kPaddingBytes): the
  // reader's in-place parse of the last chunk writes its padding there and restores it.
  size_t padding() const { return mapped_size_ - size_; }
  static constexpr size_t kPaddingBytes = 128;
  // The gzip file's size: deflate expands at most 1032:1, so the text is at most 1032 times it
  // (the trailer's size is only a claim until the inflater reaches it).
  size_t compressed_size() const { return compressed_size_; }
  // Blocks until [0, min(end, size())) is inflated, or the inflater has stopped (then the rest
  // is readable but unspecified: zeros, or pages Recycle moved there; Finish then reports the
  // inflater's error or the size mismatch, and the parse of that text is discarded). Returns
  // the end of the readable range (size() once the inflater stopped).
  size_t WaitFor(size_t end);
  // The reader will not read before `position` again: the inflater may run on.
  void Released(size_t position);
  // The reader is done with the pages [at, at + bytes) (page-aligned, inside view()): they are
  // moved ahead of the inflater (mremap), which then writes into pages already mapped instead of
  // faulting in fresh zeroed ones. False when there is no room ahead (then release them).
  bool Recycle(void* at, size_t bytes);
  // Stops the inflater and returns how it ended: false when the text was found longer or shorter
  // than the trailer states (several members, or 4 GiB and more: read the file whole then);
  // its error (corrupt or truncated gzip, the cap, cancellation); else true (stopped early by
  // a reader that failed on its own, or the whole text exactly).
  Result<bool> Finish();

 private:
  InflatingText() = default;
  void Inflate();
  // Maps the pages of [from, from + bytes) before the inflater writes them.
  void Populate(size_t from, size_t bytes);

  std::string path_;
  size_t window_bytes_ = kWindowBytes;
  const char* compressed_ = nullptr;
  size_t compressed_size_ = 0;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_size_ = 0;

  std::mutex mutex_;
  std::condition_variable changed_;
  size_t produced_ = 0;      // guarded by mutex_
  size_t writing_end_ = 0;   // the inflater writes below this until it takes the lock again
  size_t recycled_end_ = 0;  // recycled pages lie below this
  size_t released_ = 0;
  size_t wanted_ = 0;
  bool done_ = false;
  bool stop_ = false;
  Status status_ = Status::Ok();
  bool exact_ = false;
  std::thread worker_;
};

// ReadTraceFile's path for such a file (reader.cpp): the trace parsed as it is inflated; nullopt
// when the file is not one to stream, or when its text turned out longer or shorter than its
// trailer states (then read it whole).
Result<std::optional<Trace>> ReadStreamedGzip(
    const std::string& path, const InflatingText::Limits& limits = InflatingText::Limits());

}  // namespace xpuperf::trace::internal

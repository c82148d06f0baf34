// Streaming gzip inflation with the decompressed-size cap and cancellation of input_file.h.
// Two engines: ISA-L's isal_inflate (2.6x zlib's speed on trace JSON, docs/PERFORMANCE.md
// "Inflaters for .json.gz traces"), used when xpuperf was built with libisal, and zlib's inflate
// as the fallback. Both give the same bytes and the same errors for the same input:
//   - concatenated members inflate to their concatenation; bytes after the last member that do
//     not start a new member (0x1f) are ignored, as gzip(1) warns and ignores them;
//   - kParse "corrupt gzip data at compressed byte N: why" or "gzip data truncated at ...";
//   - kInvalidArgument naming the cap and how to raise it once more than max_bytes would come out;
//   - the error of CheckCancelled() when cancellation was requested (checked on every Read).
//
// Thread-safety: one GzipStream is used by one thread at a time; distinct streams are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf {

enum class InflateEngine {
  kBest,  // ISA-L when built with it (and XPUPERF_INFLATER is not "zlib"), zlib otherwise
  kZlib,
  kIsal,  // kUnsupported from OpenGzipStream when built without ISA-L
};

// The engine kBest resolves to (XPUPERF_INFLATER=zlib picks zlib), with its version: "ISA-L 2.30.0
// isal_inflate" or "zlib 1.2.13".
std::string InflaterName();
bool HaveIsal();

class GzipStream {
 public:
  virtual ~GzipStream() = default;
  // Inflates up to `room` (> 0) bytes into `out`. Returns how many were written; 0 only at the end
  // of the last member. Errors as listed above; after an error the stream stays failed.
  virtual Result<size_t> Read(char* out, size_t room) = 0;
  // Decompressed bytes returned so far.
  uint64_t produced() const { return produced_; }

 protected:
  GzipStream(std::string_view compressed, std::string path, uint64_t max_bytes)
      : compressed_(compressed), path_(std::move(path)), max_bytes_(max_bytes) {}
  // Shared error texts, so both engines say the same.
  Error TooLarge() const;
  Error Truncated() const;
  Error Corrupt(size_t at, const std::string& why) const;
  // How much the engine may write now: room, bounded so that at most max_bytes + 1 bytes come out
  // in total (one byte past the cap is how a stream learns it is over).
  size_t Allowed(size_t room) const;

  std::string_view compressed_;
  std::string path_;
  uint64_t max_bytes_;
  uint64_t produced_ = 0;
};

// A stream over `compressed` (which must outlive it). `path` names the input in errors.
Result<std::unique_ptr<GzipStream>> OpenGzipStream(std::string_view compressed, std::string path,
                                                   uint64_t max_bytes,
                                                   InflateEngine engine = InflateEngine::kBest);

}  // namespace xpuperf

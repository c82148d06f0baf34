// The shared part of GzipStream (error texts, the cap) and the zlib engine.
#include "xpuperf/core/gzip_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "gzip_stream_isal.h"
#include "human_bytes.h"
#include "xpuperf/core/cancellation.h"

namespace xpuperf {
namespace {

// zlib counts input and output in uInt: it is given at most 1 GiB of either per call.
constexpr size_t kMaxStep = size_t{1} << 30;

class ZlibGzipStream final : public GzipStream {
 public:
  ZlibGzipStream(std::string_view compressed, std::string path, uint64_t max_bytes)
      : GzipStream(compressed, std::move(path), max_bytes), input_left_(compressed.size()) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  }
  ~ZlibGzipStream() override {
    if (initialised_) inflateEnd(&zs_);
  }
  Status Init() {
    // 15 + 32: a zlib or gzip header, detected (what IsGzip-gated callers always pass is gzip).
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) {
      return MakeError(ErrorCode::kInternal, path_ + ": zlib initialisation failed");
    }
    initialised_ = true;
    return Status::Ok();
  }

  Result<size_t> Read(char* out, size_t room) override {
    if (failed_) return *failed_;
    if (done_ || room == 0) return size_t{0};
    if (Status cancelled = CheckCancelled(); !cancelled.ok()) return Fail(cancelled.error());
    const size_t allowed = Allowed(room);
    size_t written = 0;
    while (written < allowed && !done_) {
      Feed();
      zs_.next_out = reinterpret_cast<Bytef*>(out + written);
      zs_.avail_out = static_cast<uInt>(std::min(allowed - written, kMaxStep));
      const uInt before = zs_.avail_out;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      written += before - zs_.avail_out;
      produced_ += before - zs_.avail_out;
      if (produced_ > max_bytes_) return Fail(TooLarge());
      if (rc == Z_STREAM_END) {
        Feed();
        // Another member may follow (concatenated .gz files decompress to their concatenation).
        if (zs_.avail_in > 0 && zs_.next_in[0] == 0x1f && inflateReset(&zs_) == Z_OK) continue;
        done_ = true;
        break;
      }
      if (rc == Z_BUF_ERROR && zs_.avail_in == 0 && input_left_ == 0) return Fail(Truncated());
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        const size_t at = compressed_.size() - input_left_ - zs_.avail_in;
        return Fail(Corrupt(at, zs_.msg ? zs_.msg : "error " + std::to_string(rc)));
      }
    }
    return written;
  }

 private:
  void Feed() {
    if (zs_.avail_in == 0 && input_left_ > 0) {
      const size_t chunk = std::min(input_left_, kMaxStep);
      zs_.avail_in = static_cast<uInt>(chunk);
      input_left_ -= chunk;
    }
  }
  Error Fail(Error error) {
    failed_ = error;
    return error;
  }

  z_stream zs_{};
  bool initialised_ = false;
  size_t input_left_;
  bool done_ = false;
  std::optional<Error> failed_;
};

}  // namespace

Error GzipStream::TooLarge() const {
  return MakeError(ErrorCode::kInvalidArgument,
                   path_ + ": decompresses to more than " + HumanBytes(max_bytes_) +
                       " (the cap for decompressed input; raise it with "
                       "--max-decompressed-bytes or XPUPERF_MAX_DECOMPRESSED_BYTES)");
}

Error GzipStream::Truncated() const {
  return MakeError(ErrorCode::kParse, path_ + ": gzip data truncated at compressed byte " +
                                          std::to_string(compressed_.size()) + " (after " +
                                          std::to_string(produced_) + " decompressed bytes)");
}

Error GzipStream::Corrupt(size_t at, const std::string& why) const {
  return MakeError(ErrorCode::kParse, path_ + ": corrupt gzip data at compressed byte " +
                                          std::to_string(at) + ": " + why);
}

size_t GzipStream::Allowed(size_t room) const {
  // produced_ <= max_bytes_ here (a stream fails as soon as it passes the cap).
  const uint64_t left = max_bytes_ - produced_;
  return left >= room ? room : static_cast<size_t>(left + 1);
}

bool HaveIsal() { return internal::kHaveIsal; }

namespace {
// kBest: ISA-L when built in, unless XPUPERF_INFLATER=zlib asks for zlib (to compare the two on
// one binary, or to step around an inflater bug); read once.
bool BestIsIsal() {
  static const bool isal = [] {
    const char* choice = std::getenv("XPUPERF_INFLATER");
    return HaveIsal() && !(choice && std::string_view(choice) == "zlib");
  }();
  return isal;
}
}  // namespace

std::string InflaterName() {
  if (BestIsIsal()) return internal::IsalName();
  return std::string("zlib ") + zlibVersion();
}

Result<std::unique_ptr<GzipStream>> OpenGzipStream(std::string_view compressed, std::string path,
                                                   uint64_t max_bytes, InflateEngine engine) {
  if (engine == InflateEngine::kIsal || (engine == InflateEngine::kBest && BestIsIsal())) {
    return internal::OpenIsalGzipStream(compressed, std::move(path), max_bytes);
  }
  auto stream = std::make_unique<ZlibGzipStream>(compressed, std::move(path), max_bytes);
  XPUPERF_RETURN_IF_ERROR(stream->Init());
  return std::unique_ptr<GzipStream>(std::move(stream));
}

}  // namespace xpuperf

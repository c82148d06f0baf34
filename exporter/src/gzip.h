// gzip (RFC 1952) with libdeflate: several times faster than zlib at the same ratio, which matters
// because /metrics is compressed once per snapshot.
#pragma once

#include <string>
#include <string_view>

struct libdeflate_compressor;

namespace xpuperf::exporter {

// One compressor, kept: libdeflate's state is about a megabyte, and allocating it per call in
// whichever server thread compresses would leave a copy in each thread's malloc arena. Not
// thread-safe: one caller at a time.
class GzipCompressor {
 public:
  explicit GzipCompressor(int level = 6);  // 1-12, libdeflate's scale (6 = zlib's default ratio)
  ~GzipCompressor();
  GzipCompressor(const GzipCompressor&) = delete;
  GzipCompressor& operator=(const GzipCompressor&) = delete;

  // Empty when the compressor could not be allocated.
  std::string Compress(std::string_view data);

 private:
  libdeflate_compressor* compressor_;
};

}  // namespace xpuperf::exporter

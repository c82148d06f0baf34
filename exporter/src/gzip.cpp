#include "gzip.h"

#include <libdeflate.h>

namespace xpuperf::exporter {

GzipCompressor::GzipCompressor(int level) : compressor_(libdeflate_alloc_compressor(level)) {}

GzipCompressor::~GzipCompressor() {
  if (compressor_ != nullptr) libdeflate_free_compressor(compressor_);
}

std::string GzipCompressor::Compress(std::string_view data) {
  if (compressor_ == nullptr) return {};
  std::string out(libdeflate_gzip_compress_bound(compressor_, data.size()), '\0');
  const size_t n =
      libdeflate_gzip_compress(compressor_, data.data(), data.size(), out.data(), out.size());
  out.resize(n);
  out.shrink_to_fit();
  return out;
}

}  // namespace xpuperf::exporter

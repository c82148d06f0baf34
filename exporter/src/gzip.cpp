#include "gzip.h"

#include <libdeflate.h>

namespace xpuperf::exporter {

std::string Gzip(std::string_view data, int level) {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(level);
  if (compressor == nullptr) return {};
  std::string out(libdeflate_gzip_compress_bound(compressor, data.size()), '\0');
  const size_t n =
      libdeflate_gzip_compress(compressor, data.data(), data.size(), out.data(), out.size());
  libdeflate_free_compressor(compressor);
  out.resize(n);
  return out;
}

}  // namespace xpuperf::exporter

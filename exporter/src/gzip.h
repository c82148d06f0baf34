// gzip (RFC 1952) with libdeflate: several times faster than zlib at the same ratio, which matters
// because /metrics is compressed once per snapshot. Thread-safe (a compressor per call).
#pragma once

#include <string>
#include <string_view>

namespace xpuperf::exporter {

// Level 1-12 (libdeflate's scale; 6 is zlib's default ratio). Empty on allocation failure.
std::string Gzip(std::string_view data, int level = 6);

}  // namespace xpuperf::exporter

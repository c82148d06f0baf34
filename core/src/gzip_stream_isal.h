// The ISA-L engine of GzipStream (gzip_stream_isal.cpp; built with it when libisal was found).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "xpuperf/core/gzip_stream.h"

namespace xpuperf::internal {

#ifdef XPUPERF_HAVE_ISAL
inline constexpr bool kHaveIsal = true;
#else
inline constexpr bool kHaveIsal = false;
#endif

std::string IsalName();
// kUnsupported ("unsupported: built without ISA-L") when kHaveIsal is false.
Result<std::unique_ptr<GzipStream>> OpenIsalGzipStream(std::string_view compressed,
                                                       std::string path, uint64_t max_bytes);

}  // namespace xpuperf::internal

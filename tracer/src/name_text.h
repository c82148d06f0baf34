// Text helpers of the tracer: names cut to a length without splitting a UTF-8 character, and JSON
// string escaping that always yields valid UTF-8. Internal.
#pragma once

#include <string>
#include <string_view>

namespace xpuperf::tracer::detail {

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a UTF-8
// multi-byte sequence.
std::string_view TruncateUtf8(std::string_view text, size_t max_bytes);

// Appends `text` to `out` as the contents of a JSON string (without the quotes): '"' and '\\'
// escaped, control characters as \n, \t, ... or \u00XX, and each byte that is not part of a
// well-formed UTF-8 sequence replaced by U+FFFD, so strict parsers (simdjson) accept the result.
void AppendJsonEscaped(std::string& out, std::string_view text);

}  // namespace xpuperf::tracer::detail

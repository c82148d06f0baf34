// CSV as RFC 4180 writes it: a field with a comma, a quote or a line break is quoted, its quotes
// doubled; every other field as it is.
#pragma once

#include <string>
#include <string_view>

namespace xpuperf::render {

void AppendCsvField(std::string& out, std::string_view field);

}  // namespace xpuperf::render

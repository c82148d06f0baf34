// Text from traces, results and labels inside the HTML and SVG every report writes.
#pragma once

#include <string>
#include <string_view>

namespace xpuperf::render {

// `text` as HTML/XML character data or a quoted attribute value: & < > " ' as entities.
std::string HtmlEscape(std::string_view text);

}  // namespace xpuperf::render

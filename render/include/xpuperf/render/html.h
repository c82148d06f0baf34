// The HTML every report writes (`roofline --html`, `analyze --html`, `record`'s report.html): one
// page shell with one stylesheet, and the escaping of text from traces, results and labels.
#pragma once

#include <string>
#include <string_view>

namespace xpuperf::render {

// `text` as HTML/XML character data or a quoted attribute value: & < > " ' as entities.
std::string HtmlEscape(std::string_view text);

// "<!DOCTYPE html>" through "<body>": UTF-8, the escaped title, the shared stylesheet (fonts,
// headings, tables with right-aligned `td.num`, `p.meta`, `.note`, `.small`, `.na`, findings as
// `div.finding` with `critical`, `warning` or `info`), then the page's own `extra_style`.
std::string HtmlPageStart(std::string_view title, std::string_view extra_style = {});
// "</body></html>".
std::string HtmlPageEnd();

}  // namespace xpuperf::render

#include "xpuperf/render/html.h"

namespace xpuperf::render {

namespace {

constexpr const char* kStyle = R"css(
body { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; margin: 24px; color: #1a1a1a;
       background: #ffffff; max-width: 1240px; }
h1 { font-size: 22px; margin: 0 0 4px 0; }
h2 { font-size: 18px; margin: 28px 0 8px 0; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px 0; }
p.meta { color: #555; margin: 2px 0; font-size: 13px; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 10px 0; }
th, td { border: 1px solid #d0d0d0; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f0f3f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:hover td { background: #fff7e0; }
code { font-family: "DejaVu Sans Mono", monospace; }
.note, .small { color: #666; font-size: 12.5px; }
.na { color: #777; }
.finding { border-left: 4px solid #e0a000; background: #fffaf0; padding: 4px 10px; margin: 8px 0; }
.finding.critical { border-color: #d03030; background: #fff3f3; }
.finding.warning { border-color: #ff7f0e; }
.finding.info { border-color: #1f77b4; background: #f6f8fa; }
details > summary { cursor: pointer; font-weight: bold; margin: 10px 0 4px 0; }
)css";

}  // namespace

std::string HtmlPageStart(std::string_view title, std::string_view extra_style) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>";
  out += HtmlEscape(title);
  out += "</title>\n<style>";
  out += kStyle;
  out += extra_style;
  out += "</style>\n</head>\n<body>\n";
  return out;
}

std::string HtmlPageEnd() { return "</body>\n</html>\n"; }

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace xpuperf::render

#include "xpuperf/exporter/exposition.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace xpuperf::exporter {

namespace {

void AppendEscaped(std::string& out, std::string_view text, bool escape_quotes) {
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '"':
        out += escape_quotes ? "\\\"" : "\"";
        break;
      default:
        out += c;
    }
  }
}

// {a="x",b="y"} plus an optional trailing label (le), or nothing when there are none.
void AppendLabels(std::string& out, const Labels& labels, std::string_view extra_key = {},
                  std::string_view extra_value = {}) {
  if (labels.empty() && extra_key.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& [key, value] : labels.items()) {
    if (!first) out += ',';
    first = false;
    out += key;
    out += "=\"";
    AppendEscaped(out, value, true);
    out += '"';
  }
  if (!extra_key.empty()) {
    if (!first) out += ',';
    out += extra_key;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

void AppendSample(std::string& out, std::string_view name, const Labels& labels, double value) {
  out += name;
  AppendLabels(out, labels);
  out += ' ';
  out += FormatValue(value);
  out += '\n';
}

// The name on TYPE/HELP lines: OpenMetrics names counter and info families without the suffix
// their samples carry.
std::string_view DeclaredName(const MetricFamily& family, bool open_metrics) {
  std::string_view name = family.name;
  if (!open_metrics) return name;
  if (family.type == FamilyType::kCounter && name.ends_with("_total")) {
    name.remove_suffix(6);
  } else if (family.type == FamilyType::kInfo && name.ends_with("_info")) {
    name.remove_suffix(5);
  }
  return name;
}

std::string_view DeclaredType(FamilyType type, bool open_metrics) {
  if (type == FamilyType::kInfo && !open_metrics) return "gauge";
  return FamilyTypeName(type);
}

void AppendFamily(std::string& out, const MetricFamily& family, bool open_metrics) {
  const std::string_view declared = DeclaredName(family, open_metrics);
  out += "# HELP ";
  out += declared;
  out += ' ';
  AppendEscaped(out, family.help, open_metrics);
  out += "\n# TYPE ";
  out += declared;
  out += ' ';
  out += DeclaredType(family.type, open_metrics);
  out += '\n';
  if (family.type != FamilyType::kHistogram) {
    for (const ScalarPoint& p : family.points) AppendSample(out, family.name, p.labels, p.value);
    return;
  }
  const std::string bucket = family.name + "_bucket";
  for (const HistogramPoint& h : family.histograms) {
    for (size_t i = 0; i < h.upper_bounds.size() && i < h.cumulative.size(); ++i) {
      out += bucket;
      AppendLabels(out, h.labels, "le", FormatBound(h.upper_bounds[i]));
      out += ' ';
      out += FormatValue(static_cast<double>(h.cumulative[i]));
      out += '\n';
    }
    out += bucket;
    AppendLabels(out, h.labels, "le", "+Inf");
    out += ' ';
    out += FormatValue(static_cast<double>(h.count));
    out += '\n';
    AppendSample(out, family.name + "_sum", h.labels, h.sum);
    AppendSample(out, family.name + "_count", h.labels, static_cast<double>(h.count));
  }
}

// q of one Accept entry ("type/sub;version=1.0.0;q=0.5"); 1 when absent, -1 when unparsable.
double Quality(std::string_view params) {
  size_t pos = params.find("q=");
  if (pos == std::string_view::npos) return 1;
  std::string value(params.substr(pos + 2));
  char* end = nullptr;
  const double q = std::strtod(value.c_str(), &end);
  return end == value.c_str() ? -1 : q;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view ContentType(ExpositionFormat format) {
  return format == ExpositionFormat::kOpenMetrics100
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

ExpositionFormat NegotiateFormat(std::string_view accept) {
  double best_open_metrics = -1;
  double best_text = -1;
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view entry = Trim(accept.substr(0, comma));
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    const size_t semi = entry.find(';');
    const std::string_view type = Trim(entry.substr(0, semi));
    const std::string_view params =
        semi == std::string_view::npos ? std::string_view() : entry.substr(semi);
    const double q = Quality(params);
    if (type == "application/openmetrics-text") {
      // Only 1.0.0 (or unversioned) is what we write; 0.0.1 differs in details.
      const bool ours = params.find("version=") == std::string_view::npos ||
                        params.find("version=1.0.0") != std::string_view::npos;
      if (ours) best_open_metrics = std::max(best_open_metrics, q);
    } else if (type == "text/plain" || type == "*/*" || type == "text/*") {
      best_text = std::max(best_text, q);
    }
  }
  return best_open_metrics > 0 && best_open_metrics >= best_text ? ExpositionFormat::kOpenMetrics100
                                                                 : ExpositionFormat::kText004;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

std::string FormatBound(double value) {
  std::string text = FormatValue(value);
  if (text.find_first_of(".eIN") == std::string::npos) text += ".0";
  return text;
}

std::string Render(const Snapshot& snapshot, ExpositionFormat format) {
  const bool open_metrics = format == ExpositionFormat::kOpenMetrics100;
  std::string out;
  out.reserve(16384);
  for (const MetricFamily& family : snapshot.families) {
    if (!family.empty()) AppendFamily(out, family, open_metrics);
  }
  if (open_metrics) out += "# EOF\n";
  return out;
}

}  // namespace xpuperf::exporter

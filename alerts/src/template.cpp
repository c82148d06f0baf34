#include "xpuperf/alerts/template.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <regex>

namespace xpuperf::alerts {

namespace {

// Cuts an expansion at kMaxExpandedBytes (at a UTF-8 boundary) and says so.
void CutExpansion(std::string& out) {
  size_t end = kMaxExpandedBytes;
  while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80) --end;
  out.resize(end);
  out += fmt::format("... (cut at {} bytes)", kMaxExpandedBytes);
}

}  // namespace

std::string GoFloatString(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  // Shortest round-trip digits in scientific form, then Go's %g rule: exponent form when the
  // decimal exponent is < -4 or >= 6 (the shortest-precision threshold of strconv 'g').
  char buffer[64];
  auto r = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string sci(buffer, r.ptr);
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, 1) + (e > 2 ? sci.substr(2, e - 2) : "");
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string out;
  if (exponent < -4 || exponent >= 6) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else {
    const size_t integer_digits = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= integer_digits) {
      out = digits + std::string(integer_digits - digits.size(), '0');
    } else {
      out = digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
    }
  }
  return negative ? "-" + out : out;
}

Result<AlertTemplate> AlertTemplate::Parse(std::string_view text) {
  constexpr size_t kMaxActionLength = 512;
  AlertTemplate result;
  static const std::regex kLabel(R"(^\s*\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)\s*$)");
  static const std::regex kExternal(R"(^\s*\$externalLabels\.([a-zA-Z_][a-zA-Z0-9_]*)\s*$)");
  static const std::regex kValue(R"(^\s*\$value\s*$)");
  static const std::regex kPrintf(
      R"(^\s*(?:printf\s+"%\.(\d)f"\s+\$value|\$value\s*\|\s*printf\s+"%\.(\d)f")\s*$)");
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      result.pieces_.push_back({Piece::Kind::kText, std::string(text.substr(pos)), 0});
      break;
    }
    if (open > pos)
      result.pieces_.push_back({Piece::Kind::kText, std::string(text.substr(pos, open - pos)), 0});
    const size_t close = text.find("}}", open);
    if (close == std::string_view::npos) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("template: unclosed action at offset {}", open + 1));
    }
    const std::string action{text.substr(open + 2, close - open - 2)};
    // libstdc++'s std::regex recurses once per character matched; a bound keeps a hostile
    // action from overflowing the stack (the supported actions are a few dozen characters).
    if (action.size() > kMaxActionLength) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("template: action at offset {} is longer than {} characters",
                                   open + 1, kMaxActionLength));
    }
    std::smatch m;
    if (std::regex_match(action, m, kLabel)) {
      result.pieces_.push_back({Piece::Kind::kLabel, m[1].str(), 0});
    } else if (std::regex_match(action, m, kExternal)) {
      result.pieces_.push_back({Piece::Kind::kExternalLabel, m[1].str(), 0});
    } else if (std::regex_match(action, kValue)) {
      result.pieces_.push_back({Piece::Kind::kValue, "", 0});
    } else if (std::regex_match(action, m, kPrintf)) {
      const std::string digits = m[1].matched ? m[1].str() : m[2].str();
      result.pieces_.push_back({Piece::Kind::kValueFixed, "", std::stoi(digits)});
    } else {
      return MakeError(ErrorCode::kParse,
                       fmt::format("template: action {{{{{}}}}} at offset {} is outside the "
                                   "supported subset ($labels.NAME, $externalLabels.NAME, $value, "
                                   "printf \"%.Nf\" $value)",
                                   action, open + 1));
    }
    pos = close + 2;
  }
  return result;
}

bool AlertTemplate::is_literal() const {
  for (const Piece& p : pieces_) {
    if (p.kind != Piece::Kind::kText) return false;
  }
  return true;
}

std::string AlertTemplate::Expand(const Labels& labels, double value,
                                  const Labels& external_labels) const {
  std::string out;
  for (const Piece& p : pieces_) {
    if (out.size() > kMaxExpandedBytes) {
      CutExpansion(out);  // many references to long label values
      return out;
    }
    switch (p.kind) {
      case Piece::Kind::kText:
        out += p.text;
        break;
      case Piece::Kind::kLabel:
      case Piece::Kind::kExternalLabel: {
        const Labels& from = p.kind == Piece::Kind::kLabel ? labels : external_labels;
        const std::string_view v = from.Get(p.text);
        // Go templates print a missing map key as "<no value>".
        out += v.empty() ? std::string_view("<no value>") : v;
        break;
      }
      case Piece::Kind::kValue:
        out += GoFloatString(value);
        break;
      case Piece::Kind::kValueFixed:
        if (std::isnan(value)) {
          out += "NaN";
        } else if (std::isinf(value)) {
          out += value > 0 ? "+Inf" : "-Inf";
        } else {
          out += fmt::format("{:.{}f}", value, p.precision);
        }
        break;
    }
  }
  if (out.size() > kMaxExpandedBytes) CutExpansion(out);
  return out;
}

}  // namespace xpuperf::alerts

// The part of Prometheus' alert templating (Go text/template) that rule files use:
// `{{ $labels.NAME }}`, `{{ $value }}`, `{{ $externalLabels.NAME }}`, and `printf "%.Nf" $value`
// (also as `$value | printf "%.Nf"`). Anything else is refused when the rule file loads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/alerts/series.h"
#include "xpuperf/core/status.h"

namespace xpuperf::alerts {

// An expanded annotation or label is cut here ("... (cut at 65536 bytes)" ends it).
inline constexpr size_t kMaxExpandedBytes = size_t{64} * 1024;

class AlertTemplate {
 public:
  static Result<AlertTemplate> Parse(std::string_view text);
  // `labels` are the alert's sample labels; `value` its sample value.
  std::string Expand(const Labels& labels, double value, const Labels& external_labels) const;
  bool is_literal() const;

 private:
  struct Piece {
    enum class Kind { kText, kLabel, kExternalLabel, kValue, kValueFixed } kind = Kind::kText;
    std::string text;   // literal text or the label name
    int precision = 0;  // kValueFixed: digits after the point
  };
  std::vector<Piece> pieces_;
};

// Go's fmt.Sprint of a float64 (strconv 'g' with the shortest digits: 96.5, 1e+06, NaN, +Inf),
// which is how Prometheus prints `{{ $value }}`.
std::string GoFloatString(double value);

}  // namespace xpuperf::alerts

#include "xpuperf/record/bmc_power_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

namespace xpuperf::record {
namespace {

std::string_view Trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// A plain non-negative decimal ("220", "112.50"): at most 9 integer and 6 fraction digits, so the
// value is exact in a double and far from overflow. No sign, exponent, hex, inf or nan.
std::optional<double> ParseDecimal(std::string_view text) {
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 9 || !digits(whole)) return std::nullopt;
  if (dot != std::string_view::npos &&
      (fraction.empty() || fraction.size() > 6 || !digits(fraction)))
    return std::nullopt;
  double value = 0;
  for (char c : whole) value = value * 10 + (c - '0');
  double scale = 0.1;
  for (char c : fraction) {
    value += (c - '0') * scale;
    scale /= 10;
  }
  return value;
}

// "<decimal> <unit>" with exactly one run of blanks between; the number, when the unit matches.
std::optional<double> NumberWithUnit(std::string_view text, std::string_view unit) {
  const size_t space = text.find_first_of(" \t");
  if (space == std::string_view::npos) return std::nullopt;
  if (Trim(text.substr(space)) != unit) return std::nullopt;
  return ParseDecimal(text.substr(0, space));
}

Result<double> Watts(std::string_view line, std::string_view value) {
  std::optional<double> watts = NumberWithUnit(value, "Watts");
  if (!watts) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("not a power reading in watts: '{}'", FirstLine(line)));
  }
  if (*watts > kMaxBmcWatts) {
    return MakeError(ErrorCode::kParse, fmt::format("{} W is out of range (0 to {} W): '{}'",
                                                    *watts, kMaxBmcWatts, FirstLine(line)));
  }
  return *watts;
}

bool Printable(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string FirstLine(std::string_view text) {
  for (std::string_view line : Lines(text)) {
    line = Trim(line);
    if (line.empty()) continue;
    std::string out;
    for (char c : line.substr(0, 200)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
    return out;
  }
  return "";
}

Result<BmcPowerReading> ParseDcmiPowerReading(std::string_view text) {
  if (text.size() > kMaxIpmitoolOutputBytes) {
    return MakeError(ErrorCode::kParse, "ipmitool's output is longer than a power reading");
  }
  BmcPowerReading reading;
  bool have_instantaneous = false;
  std::optional<bool> activated;
  for (std::string_view raw : Lines(text)) {
    const std::string_view line = Trim(raw);
    const size_t colon = line.find(':');
    if (line.empty() || colon == std::string_view::npos) continue;
    const std::string_view key = Trim(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    std::optional<double>* statistic = nullptr;
    if (key == "Instantaneous power reading") {
      if (have_instantaneous) return MakeError(ErrorCode::kParse, "two instantaneous readings");
      XPUPERF_ASSIGN_OR_RETURN(reading.watts, Watts(line, value));
      have_instantaneous = true;
      continue;
    }
    if (key == "Minimum during sampling period") statistic = &reading.minimum_watts;
    if (key == "Maximum during sampling period") statistic = &reading.maximum_watts;
    if (key == "Average power reading over sample period") statistic = &reading.average_watts;
    if (statistic != nullptr) {
      XPUPERF_ASSIGN_OR_RETURN(double watts, Watts(line, value));
      *statistic = watts;
    } else if (key == "IPMI timestamp") {
      if (value.size() > 64 || !Printable(value)) {
        return MakeError(ErrorCode::kParse, "the IPMI timestamp is not a short line of text");
      }
      reading.bmc_timestamp = std::string(value);
    } else if (key == "Sampling period") {
      // 1.8.x prints "%08u Seconds." (the BMC's milliseconds / 1000); other builds milliseconds.
      std::string_view period = value;
      if (period.ends_with('.')) period.remove_suffix(1);
      std::optional<double> seconds = NumberWithUnit(period, "Seconds");
      if (!seconds) {
        std::optional<double> ms = NumberWithUnit(period, "Milliseconds");
        if (ms) seconds = *ms / 1000;
      }
      // The BMC reports the window as a 32-bit count of milliseconds.
      if (!seconds || *seconds > 4294967.295) {
        return MakeError(ErrorCode::kParse,
                         fmt::format("not a sampling period: '{}'", FirstLine(line)));
      }
      reading.sampling_period_s = *seconds;
    } else if (key == "Power reading state is") {
      if (value == "activated") {
        activated = true;
      } else if (value == "deactivated") {
        activated = false;
      } else {
        return MakeError(ErrorCode::kParse,
                         fmt::format("unknown power reading state: '{}'", FirstLine(value)));
      }
    }
  }
  if (!have_instantaneous) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("no 'Instantaneous power reading' line in ipmitool's output "
                                 "(first line: '{}')",
                                 FirstLine(text)));
  }
  if (activated && !*activated) {
    return MakeError(ErrorCode::kUnavailable,
                     "the BMC's DCMI power reading is deactivated (its figures are not current)");
  }
  return reading;
}

Result<BmcPowerReading> ParseSdrPowerSensors(std::string_view text) {
  if (text.size() > kMaxIpmitoolOutputBytes) {
    return MakeError(ErrorCode::kParse, "ipmitool's output is longer than a sensor list");
  }
  struct Row {
    std::string name;
    double watts;
  };
  std::vector<Row> totals, inputs;
  for (std::string_view raw : Lines(text)) {
    std::vector<std::string_view> fields;
    std::string_view rest = raw;
    while (fields.size() < 6) {
      const size_t bar = rest.find('|');
      fields.push_back(Trim(rest.substr(0, bar)));
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
    // name | id | status | entity | reading: anything else is not a sensor row.
    if (fields.size() != 5) continue;
    const std::string_view value = fields[4];
    if (!value.ends_with("Watts") || fields[2] == "ns") continue;  // ns: no reading
    if (fields[0].empty() || fields[0].size() > 64 || !Printable(fields[0])) {
      return MakeError(ErrorCode::kParse, "a sensor name that is not a short line of text");
    }
    XPUPERF_ASSIGN_OR_RETURN(double watts, Watts(raw, value));
    const std::string name = Lower(fields[0]);
    Row row{std::string(fields[0]), watts};
    if (name.find("consumption") != std::string::npos ||
        name.find("system power") != std::string::npos ||
        name.find("sys power") != std::string::npos ||
        name.find("total power") != std::string::npos) {
      totals.push_back(row);
    } else if (name.find("input power") != std::string::npos ||
               name.find("power in") != std::string::npos || name.ends_with(" pin")) {
      inputs.push_back(row);
    }
  }
  BmcPowerReading reading;
  if (!totals.empty()) {
    reading.watts = totals.front().watts;
    reading.sensors = totals.front().name;
    return reading;
  }
  if (inputs.empty()) {
    return MakeError(ErrorCode::kUnsupported,
                     "no node power sensor (Pwr Consumption, System Power or PSU Input Power) "
                     "with a reading in the BMC's SDR");
  }
  for (const Row& row : inputs) {
    reading.watts += row.watts;
    reading.sensors += (reading.sensors.empty() ? "" : " + ") + row.name;
  }
  if (reading.watts > kMaxBmcWatts) {
    return MakeError(ErrorCode::kParse,
                     fmt::format("the PSU inputs sum to {} W, out of range", reading.watts));
  }
  return reading;
}

}  // namespace xpuperf::record

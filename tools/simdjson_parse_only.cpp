// The floor for reading a Chrome/Kineto trace: simdjson's on-demand API visits every event of
// "traceEvents" and reads its "ts" and "dur" as numbers, and nothing else. An analysis that
// reads a trace cannot be faster than this on the same file; scripts/trace-perf.sh compares
// `xpuperf analyze` with it.
//
//   simdjson_parse_only FILE
//
// Prints the event count, a checksum of the timestamps (so the reads cannot be optimised away),
// the time to load the file and to parse it, and MB/s (1 MB = 1e6 bytes) of the whole run.
#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: simdjson_parse_only FILE\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  simdjson::padded_string json;
  if (auto error = simdjson::padded_string::load(argv[1]).get(json); error) {
    std::fprintf(stderr, "simdjson_parse_only: cannot read %s: %s\n", argv[1],
                 simdjson::error_message(error));
    return 1;
  }
  const auto t1 = Clock::now();

  simdjson::ondemand::parser parser;
  uint64_t events = 0;
  double ts_sum = 0, dur_sum = 0;
  auto parse = [&]() -> simdjson::error_code {
    simdjson::ondemand::document doc;
    SIMDJSON_TRY(parser.iterate(json).get(doc));
    simdjson::ondemand::object top;
    SIMDJSON_TRY(doc.get_object().get(top));
    for (auto field : top) {
      std::string_view key;
      SIMDJSON_TRY(field.unescaped_key().get(key));
      if (key != "traceEvents") continue;
      simdjson::ondemand::array array;
      SIMDJSON_TRY(field.value().get_array().get(array));
      for (auto element : array) {
        simdjson::ondemand::object event;
        SIMDJSON_TRY(element.get_object().get(event));
        ++events;
        for (auto member : event) {
          std::string_view name;
          SIMDJSON_TRY(member.unescaped_key().get(name));
          if (name == "ts" || name == "dur") {
            double value = 0;
            // Integer and fractional numbers; a string "ts" (never in Kineto traces) is skipped.
            if (member.value().get_double().get(value) == simdjson::SUCCESS) {
              (name == "ts" ? ts_sum : dur_sum) += value;
            }
          }
        }
      }
    }
    return simdjson::SUCCESS;
  };
  if (const auto error = parse(); error != simdjson::SUCCESS) {
    std::fprintf(stderr, "simdjson_parse_only: %s: %s\n", argv[1], simdjson::error_message(error));
    return 1;
  }
  const auto t2 = Clock::now();
  const double load_s = std::chrono::duration<double>(t1 - t0).count();
  const double parse_s = std::chrono::duration<double>(t2 - t1).count();
  const double mb = static_cast<double>(json.size()) / 1e6;
  std::printf(
      "events=%llu bytes=%zu ts_checksum=%.3f dur_checksum=%.3f load_s=%.3f parse_s=%.3f "
      "MB_per_s=%.1f parse_MB_per_s=%.1f\n",
      static_cast<unsigned long long>(events), json.size(), ts_sum, dur_sum, load_s, parse_s,
      mb / (load_s + parse_s), mb / parse_s);
  return 0;
}

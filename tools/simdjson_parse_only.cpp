// The floor for reading a Chrome/Kineto trace the way xpuperf reads it: the traceEvents array cut
// into ~1 MB chunks of whole events, each copied into a padded buffer as "[" + chunk + "]" and
// walked by simdjson's on-demand API, which visits every field of every event and of its `args`
// and reads `ts` and `dur` as numbers, and does nothing else. xpuperf's reader does this walk plus
// its own work on each field; scripts/trace-perf.sh compares both with it.
//
//   simdjson_parse_only FILE [CHUNK_BYTES]
//
// Prints the event count, the number of fields visited, a checksum of the timestamps (so the
// reads cannot be optimised away), the time to load the file and to parse it, and MB/s (1 MB =
// 1e6 bytes) of the whole run and of the parse alone. Chunks are cut where "}" "," "{" follow
// each other past CHUNK_BYTES (default 1 MiB), checked by the parse itself; the last stretch is
// scanned exactly for the array's end.
#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

namespace od = simdjson::ondemand;

size_t SkipSpace(std::string_view text, size_t i) {
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) {
    ++i;
  }
  return i;
}

// The "," of the first "}" "," "{" at or past `from` (npos if none before `limit`).
size_t GuessCut(std::string_view text, size_t from, size_t limit) {
  for (size_t i = from; i < limit;) {
    const void* hit = std::memchr(text.data() + i, '}', limit - i);
    if (hit == nullptr) return std::string_view::npos;
    const size_t brace = static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    const size_t comma = SkipSpace(text, brace + 1);
    if (comma < text.size() && text[comma] == ',') {
      const size_t next = SkipSpace(text, comma + 1);
      if (next < text.size() && text[next] == '{') return comma;
    }
    i = brace + 1;
  }
  return std::string_view::npos;
}

// The "]" closing the array whose elements start at `from` (string-aware), npos if none.
size_t ArrayEnd(std::string_view text, size_t from) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return c == ']' ? i : std::string_view::npos;
      --depth;
    }
  }
  return std::string_view::npos;
}

struct Totals {
  uint64_t events = 0, fields = 0;
  double ts_sum = 0, dur_sum = 0;
};

simdjson::error_code WalkChunk(od::parser& parser, std::vector<char>& buffer,
                               std::string_view chunk, Totals& totals) {
  const size_t needed = chunk.size() + 2 + simdjson::SIMDJSON_PADDING;
  if (buffer.size() < needed) buffer.resize(needed);
  buffer[0] = '[';
  std::memcpy(buffer.data() + 1, chunk.data(), chunk.size());
  buffer[chunk.size() + 1] = ']';
  std::memset(buffer.data() + chunk.size() + 2, ' ', simdjson::SIMDJSON_PADDING);
  od::document doc;
  SIMDJSON_TRY(parser.iterate(buffer.data(), chunk.size() + 2, buffer.size()).get(doc));
  od::array events;
  SIMDJSON_TRY(doc.get_array().get(events));
  for (auto element : events) {
    od::object event;
    SIMDJSON_TRY(element.get_object().get(event));
    ++totals.events;
    for (auto member : event) {
      std::string_view key;
      SIMDJSON_TRY(member.unescaped_key().get(key));
      ++totals.fields;
      if (key == "ts" || key == "dur") {
        double value = 0;
        if (member.value().get_double().get(value) == simdjson::SUCCESS) {
          (key == "ts" ? totals.ts_sum : totals.dur_sum) += value;
        }
      } else if (key == "args") {
        od::object args;
        if (member.value().get_object().get(args) != simdjson::SUCCESS) continue;
        for (auto arg : args) {
          std::string_view arg_key;
          SIMDJSON_TRY(arg.unescaped_key().get(arg_key));
          ++totals.fields;
        }
      }
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: simdjson_parse_only FILE [CHUNK_BYTES]\n");
    return 2;
  }
  const size_t chunk_bytes = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : size_t{1} << 20;
  if (chunk_bytes == 0) {
    std::fprintf(stderr, "simdjson_parse_only: CHUNK_BYTES must be a positive integer\n");
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
  const std::string_view text(json.data(), json.size());
  const size_t key = text.find("\"traceEvents\"");
  const size_t open = key == std::string_view::npos ? key : text.find('[', key);
  if (open == std::string_view::npos) {
    std::fprintf(stderr, "simdjson_parse_only: %s: no traceEvents array\n", argv[1]);
    return 1;
  }
  od::parser parser;
  std::vector<char> buffer;
  Totals totals;
  size_t start = SkipSpace(text, open + 1);
  while (start < text.size() && text[start] != ']') {
    const size_t limit = std::min(text.size(), start + 2 * chunk_bytes);
    size_t cut = start + chunk_bytes < limit ? GuessCut(text, start + chunk_bytes, limit)
                                             : std::string_view::npos;
    const bool last = cut == std::string_view::npos;
    if (last) cut = ArrayEnd(text, start);
    if (cut == std::string_view::npos) {
      std::fprintf(stderr, "simdjson_parse_only: %s: traceEvents does not end\n", argv[1]);
      return 1;
    }
    if (auto error = WalkChunk(parser, buffer, text.substr(start, cut - start), totals); error) {
      std::fprintf(stderr, "simdjson_parse_only: %s: %s (chunk at byte %zu)\n", argv[1],
                   simdjson::error_message(error), start);
      return 1;
    }
    if (last) break;
    start = cut + 1;
  }
  const auto t2 = Clock::now();
  const double load_s = std::chrono::duration<double>(t1 - t0).count();
  const double parse_s = std::chrono::duration<double>(t2 - t1).count();
  const double mb = static_cast<double>(json.size()) / 1e6;
  std::printf(
      "events=%llu fields=%llu bytes=%zu ts_checksum=%.3f dur_checksum=%.3f load_s=%.3f "
      "parse_s=%.3f MB_per_s=%.1f parse_MB_per_s=%.1f\n",
      static_cast<unsigned long long>(totals.events),
      static_cast<unsigned long long>(totals.fields), json.size(), totals.ts_sum, totals.dur_sum,
      load_s, parse_s, mb / (load_s + parse_s), mb / parse_s);
  return 0;
}

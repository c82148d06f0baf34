#include "event_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "xpuperf/trace/hta_convention.h"
#include "xpuperf/trace/model_flops.h"

namespace xpuperf::trace::internal {
namespace {

namespace od = simdjson::ondemand;

// Key comparison, inlined: the size first, then a memcmp of a known length that the compiler turns
// into a few loads (std::operator== stays an out-of-line call in this hot loop).
template <size_t N>
[[gnu::always_inline]] inline bool Is(std::string_view key, const char (&literal)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

// 10^0 .. 10^19.
constexpr uint64_t kPow10[20] = {1u,
                                 10u,
                                 100u,
                                 1000u,
                                 10000u,
                                 100000u,
                                 1000000u,
                                 10000000u,
                                 100000000u,
                                 1000000000u,
                                 10000000000u,
                                 100000000000u,
                                 1000000000000u,
                                 10000000000000u,
                                 100000000000000u,
                                 1000000000000000u,
                                 10000000000000000u,
                                 100000000000000000u,
                                 1000000000000000000u,
                                 10000000000000000000u};

// The run of decimal digits at `p`, at most 19 (so that it fits in an int64): its length, and its
// value in *value. `readable` bytes from p may be read (at least the run and what ends it): eight
// digits at a time, without a branch per digit, where 8 bytes are readable (SWAR: one load, a mask
// of the non-digits, three multiplies), one at a time near the end.
[[gnu::always_inline]] inline size_t DigitRun(const char* p, size_t readable, uint64_t* value) {
  constexpr uint64_t kZeros = 0x3030303030303030ull, kHighNibbles = 0xF0F0F0F0F0F0F0F0ull;
  uint64_t v = 0;
  size_t n = 0;
  while (n + 8 <= readable && n < 16) {
    uint64_t word = 0;
    std::memcpy(&word, p + n, 8);
    // A byte is a digit when its high nibble is 3 before and after adding 6; the first byte that
    // is not ends the run (carries and borrows only reach the bytes after it, which are dropped).
    const uint64_t not_digit = ((word & kHighNibbles) ^ kZeros) |
                               (((word + 0x0606060606060606ull) & kHighNibbles) ^ kZeros);
    const size_t digits = not_digit == 0 ? 8 : static_cast<size_t>(__builtin_ctzll(not_digit)) / 8;
    if (digits == 0) break;
    // The digits moved to the top bytes, zeros (leading '0's) before them, then 8 digits at once.
    uint64_t d = (word - kZeros) << (8 * (8 - digits));
    d = d * 10 + (d >> 8);
    d = (((d & 0x000000FF000000FFull) * 0x000F424000000064ull) +
         (((d >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >>
        32;
    v = v * kPow10[digits] + d;
    n += digits;
    if (digits < 8) {
      *value = v;
      return n;
    }
  }
  while (n < readable && n < 19 && p[n] >= '0' && p[n] <= '9') v = v * 10 + uint64_t(p[n++] - '0');
  *value = v;
  return n;
}

// A field's key without its quotes (escapes kept: the keys read here have none). The closing
// quote is found 8 bytes at a time: the chunk buffer is padded (SIMDJSON_PADDING), so the loads
// past a key near its end stay inside it.
[[gnu::always_inline]] inline std::string_view KeyOf(od::field& field) {
  const char* raw = field.key().raw();
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  constexpr uint64_t kQuotes = kOnes * '"';
  for (size_t at = 0;; at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, raw + at, 8);
    const uint64_t x = word ^ kQuotes;  // a zero byte where a quote is
    const uint64_t zero = (x - kOnes) & ~x & kHighs;
    if (zero != 0) {
      return std::string_view(raw, at + static_cast<size_t>(__builtin_ctzll(zero) / 8));
    }
  }
}

// The scalar text of a value: a number's digits, or a string's content without quotes (escapes
// kept). Empty for objects, arrays and errors.
std::string_view ScalarText(od::value& value) {
  std::string_view token = value.raw_json_token();
  if (token.empty()) return {};
  if (token[0] == '"') {
    size_t close = token.find('"', 1);
    if (close == std::string_view::npos) return {};
    return token.substr(1, close - 1);
  }
  if (token[0] == '{' || token[0] == '[') return {};
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  return token;
}

// A string value's content: a view into the input when it holds no escapes (the common case, no
// copy), else unescaped by simdjson. False when the value is not a string.
bool StringOf(od::value& value, std::string_view* out) {
  std::string_view token = value.raw_json_token();
  if (token.size() >= 2 && token[0] == '"') {
    size_t close = token.size() - 1;
    while (close > 0 && token[close] != '"') --close;  // the token ends with spaces at most
    if (close > 0) {
      std::string_view content = token.substr(1, close - 1);
      if (std::memchr(content.data(), '\\', content.size()) == nullptr) {
        *out = content;
        return true;
      }
    }
  }
  return !value.get_string().get(*out);
}

// Whether Python's int() takes the value: a number, or a string of optional blanks, an optional
// sign, decimal digits and blanks ("0x0" and "7.0" are rejected).
bool PythonIntAccepts(od::value& value) {
  std::string_view token = value.raw_json_token();
  if (token.empty() || token[0] != '"') return true;
  std::string_view text;
  if (!StringOf(value, &text)) return false;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// An integer from a number or a numeric string ("7", "0x0", "12.0"); false otherwise.
bool IntegerOf(od::value& value, int64_t* out) {
  // Fast path: a JSON number of up to 18 decimal digits (almost every id in a trace), read from
  // the raw token, which ends with blanks at most.
  // (The document is padded: SIMDJSON_PADDING bytes past any token are readable.)
  const std::string_view token = value.raw_json_token();
  if (!token.empty()) {
    const size_t start = token[0] == '-' ? 1 : 0;
    uint64_t v = 0;
    const size_t digits =
        DigitRun(token.data() + start, token.size() - start + simdjson::SIMDJSON_PADDING, &v);
    const size_t i = start + digits;
    if (digits > 0 && digits < 19 &&
        (i == token.size() || token[i] == ' ' || token[i] == '\n' || token[i] == '\r' ||
         token[i] == '\t')) {
      *out = start ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      return true;
    }
  }
  std::string_view text = ScalarText(value);
  if (text.empty()) return false;
  // Plain decimal digits in a string ("7").
  if (text.size() < 19) {
    int64_t v = 0;
    size_t i = text[0] == '-' ? 1 : 0;
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') v = v * 10 + (text[i++] - '0');
    if (i == text.size() && i > start) {
      *out = start ? -v : v;
      return true;
    }
  }
  char buf[64];
  size_t n = std::min(text.size(), sizeof(buf) - 1);
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(buf, &end, 0);
  if (end != buf && errno == 0 && (*end == '\0' || *end == '.' || *end == 'e' || *end == 'E')) {
    if (*end == '\0') {
      *out = v;
      return true;
    }
  }
  double d = std::strtod(buf, &end);
  if (end == buf || !std::isfinite(d) || std::fabs(d) > 9e18) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

// "Input Dims": [[m, k], [k, n], []] flattened into the pool as [inputs, len, dims..., ...].
bool ReadDims(od::value& value, std::vector<int64_t>& pool) {
  od::array outer;
  if (value.get_array().get(outer)) return false;
  size_t start = pool.size();
  pool.push_back(0);
  for (auto item : outer) {
    od::value inner_value;
    if (item.get(inner_value)) return false;
    od::array inner;
    size_t len_at = pool.size();
    pool.push_back(0);
    if (inner_value.get_array().get(inner)) {
      ++pool[start];
      continue;  // a scalar or null input: no shape
    }
    for (auto dim : inner) {
      int64_t d = 0;
      od::value dv;
      if (dim.get(dv)) return false;
      if (!IntegerOf(dv, &d) || d > (int64_t{1} << 31) || d < 0) d = -1;
      pool.push_back(d);
      ++pool[len_at];
    }
    ++pool[start];
  }
  return true;
}

// "Concrete Inputs": ["", "[2, 2]", "1", "True", "0."] as integer lists in the dims pool's form
// [n, len0, v.., ...]: a list of integers or flags, one integer, True/False as 1/0; anything else
// ("", a real number, a string such as "same") as an empty list.
bool ReadConcreteInputs(od::value& value, std::vector<int64_t>& out) {
  od::array items;
  if (value.get_array().get(items)) return false;
  out.clear();
  out.push_back(0);
  std::vector<int64_t> numbers;
  for (auto item : items) {
    std::string_view text;
    numbers.clear();
    if (!item.get_string().get(text)) {
      if (text == "True" || text == "False") {
        numbers.push_back(text == "True" ? 1 : 0);
      } else {
        const bool list = text.size() >= 2 && text.front() == '[' && text.back() == ']';
        std::string_view body = list ? text.substr(1, text.size() - 2) : text;
        bool ok = !body.empty() || list;
        while (ok && !body.empty()) {
          size_t comma = body.find(',');
          std::string_view part = body.substr(0, comma);
          while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
          while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
          int64_t v = 0;
          if (part == "True" || part == "False") {
            v = part == "True" ? 1 : 0;  // a list of flags: convolution_backward's output_mask
          } else {
            auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
            ok = ec == std::errc() && end == part.data() + part.size() && !part.empty() &&
                 v > -(int64_t{1} << 31) && v < (int64_t{1} << 31);
          }
          if (ok) numbers.push_back(v);
          body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
        }
        if (!ok) numbers.clear();
      }
    }
    if (numbers.size() > 64) numbers.clear();
    out.push_back(static_cast<int64_t>(numbers.size()));
    out.insert(out.end(), numbers.begin(), numbers.end());
    if (++out[0] > 64) return false;
  }
  return true;
}

EventKind ClassifyCategory(std::string_view cat, bool* is_2021) {
  struct Entry {
    std::string_view cat;
    EventKind kind;
    bool old_format;
  };
  static constexpr Entry kExact[] = {
      {"cpu_op", EventKind::kCpuOp, false},
      {"user_annotation", EventKind::kUserAnnotation, false},
      {"gpu_user_annotation", EventKind::kGpuUserAnnotation, false},
      {"kernel", EventKind::kKernel, false},
      {"gpu_memcpy", EventKind::kMemcpy, false},
      {"gpu_memset", EventKind::kMemset, false},
      {"cuda_runtime", EventKind::kRuntime, false},
      {"cuda_driver", EventKind::kDriver, false},
      {"cuda_sync", EventKind::kSync, false},
      {"python_function", EventKind::kPythonFunction, false},
      {"Operator", EventKind::kCpuOp, true},
      {"Kernel", EventKind::kKernel, true},
      {"Memcpy", EventKind::kMemcpy, true},
      {"Memset", EventKind::kMemset, true},
      {"Runtime", EventKind::kRuntime, true},
      {"python_function", EventKind::kPythonFunction, false},
  };
  for (const auto& e : kExact) {
    if (cat == e.cat) {
      if (e.old_format) *is_2021 = true;
      return e.kind;
    }
  }
  // Vendor variants (mtia_*, xpu_*, privateuse1_*, hip): classify by what the name says.
  std::string lower(cat);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("annotation") != std::string::npos) {
    return lower.find("gpu") != std::string::npos || lower.find("device") != std::string::npos
               ? EventKind::kGpuUserAnnotation
               : EventKind::kUserAnnotation;
  }
  if (lower.find("memcpy") != std::string::npos) return EventKind::kMemcpy;
  if (lower.find("memset") != std::string::npos) return EventKind::kMemset;
  if (lower.find("kernel") != std::string::npos) return EventKind::kKernel;
  if (lower.find("runtime") != std::string::npos) return EventKind::kRuntime;
  if (lower.find("driver") != std::string::npos) return EventKind::kDriver;
  if (lower.find("sync") != std::string::npos) return EventKind::kSync;
  if (lower.find("cpu_op") != std::string::npos) return EventKind::kCpuOp;
  return EventKind::kOther;
}

}  // namespace

bool MicrosTextToNanos(std::string_view text, int64_t* nanos, bool* written_fractional,
                       size_t readable_past_end) {
  // (An empty text may point nowhere: nothing past it is readable then.)
  if (text.empty()) return false;
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  // The digit run at `at`; digits right after the text (readable_past_end) are not the text's:
  // then it is read alone.
  auto run_at = [&](size_t at, uint64_t* value) {
    const size_t n = DigitRun(text.data() + at, text.size() - at + readable_past_end, value);
    return at + n <= text.size() ? n : DigitRun(text.data() + at, text.size() - at, value);
  };
  uint64_t run = 0;
  size_t digits = run_at(i, &run);
  i += digits;
  // Nanoseconds must fit an int64 (a 19-digit run would not, nor would digits past it).
  if (run > static_cast<uint64_t>((INT64_MAX - 999) / 1000) ||
      (i < text.size() && text[i] >= '0' && text[i] <= '9')) {
    return false;
  }
  const auto whole = static_cast<int64_t>(run);
  int64_t fraction = 0;
  if (i < text.size() && text[i] == '.') {
    if (written_fractional) *written_fractional = true;
    ++i;
    // Nanoseconds: the first three digits, rounded half up by the fourth (the rest ignored).
    uint64_t run_digits = 0;
    const size_t taken = run_at(i, &run_digits);
    if (taken <= 3) {
      fraction = static_cast<int64_t>(run_digits * kPow10[3 - taken]);
    } else {
      const uint64_t first4 = run_digits / kPow10[taken - 4];
      fraction = static_cast<int64_t>(first4 / 10 + (first4 % 10 >= 5 ? 1 : 0));
    }
    i += taken;
    digits += taken;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {  // past the 19th
      ++i;
      ++digits;
    }
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    if (written_fractional) *written_fractional = true;
    std::string copy(text);
    char* end = nullptr;
    double v = std::strtod(copy.c_str(), &end);
    if (!std::isfinite(v) || std::fabs(v) > 9e15) return false;
    *nanos = std::llround(v * 1000.0);
    return true;
  }
  int64_t value = whole * 1000 + fraction;
  *nanos = negative ? -value : value;
  return true;
}

bool NeedsInputType(std::string_view name) {
  return FlopOpOf(name) != FlopOp::kNone || name.find("conv") != std::string_view::npos;
}

bool IsGemmOpName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"aten::mm",      "aten::addmm",  "aten::bmm",
                                                "aten::baddbmm", "aten::matmul", "aten::linear",
                                                "aten::addbmm"};
  for (auto n : kNames) {
    if (name == n) return true;
  }
  return false;
}

EventParser::EventParser(Trace& trace) : trace_(trace) {
  memory_name_ = trace_.strings.Intern("[memory]");
  process_name_ = trace_.strings.Intern("process_name");
}

uint32_t EventParser::InternName(std::string_view text) {
  // 4096 slots, fewer for a small text (a tiny trace should not clear 64 KiB to read 10 events).
  if (name_cache_.empty()) {
    size_t count = 64;
    while (count < 4096 && count * 256 < static_cast<size_t>(trace_.input_bytes)) count *= 2;
    name_cache_.resize(count);
  }
  const size_t slots = name_cache_.size();
  uint64_t head = 0, tail = 0;
  const size_t n = text.size();
  // Fixed-size loads (one instruction each); a variable-size memcpy into `head` was a library
  // call whose byte stores the 8-byte load then waited for (no store-to-load forwarding).
  if (n >= 8) {
    std::memcpy(&head, text.data(), 8);
    std::memcpy(&tail, text.data() + n - 8, 8);
  } else {
    for (size_t i = 0; i < n; ++i) head |= uint64_t{static_cast<unsigned char>(text[i])} << (8 * i);
  }
  uint64_t tag = (head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ n;
  CachedName& slot = name_cache_[(tag ^ (tag >> 29)) & (slots - 1)];
  if (slot.tag == tag && slot.id != 0 && trace_.strings.Get(slot.id) == text) return slot.id;
  uint32_t id = trace_.strings.Intern(text);
  slot = {tag, id};
  return id;
}

int32_t EventParser::InternId(std::string_view text) {
  return -1 - static_cast<int32_t>(trace_.strings.Intern(text));
}

EventKind EventParser::KindOfCategory(uint32_t category) {
  if (category >= category_kind_.size()) category_kind_.resize(trace_.strings.size() + 64, -1);
  int8_t& cached = category_kind_[category];
  if (cached < 0) {
    bool old = false;
    cached = static_cast<int8_t>(ClassifyCategory(trace_.strings.Get(category), &old));
    if (old) saw_2021_categories_ = true;
  }
  return static_cast<EventKind>(cached);
}

uint8_t EventParser::NameFlags(uint32_t name) {
  if (name >= name_flags_.size()) name_flags_.resize(trace_.strings.size() + 64, 0);
  uint8_t& flags = name_flags_[name];
  if (flags == 0) {
    const std::string_view text = trace_.strings.Get(name);
    flags = static_cast<uint8_t>(kClassified | (FlopOpOf(text) != FlopOp::kNone ? kShapeName : 0) |
                                 (NeedsInputType(text) ? kInputTypeName : 0) |
                                 (NeedsConcreteInputs(text) ? kConcreteName : 0));
  }
  return flags;
}

Error EventParser::ChunkError(simdjson::error_code code, size_t file_offset, std::string_view chunk,
                              const char* location) {
  size_t offset = file_offset;
  if (location && document_ != nullptr && location >= document_ + 1 &&
      location <= document_ + 1 + chunk.size()) {
    offset = file_offset + static_cast<size_t>(location - (document_ + 1));
  }
  return MakeError(ErrorCode::kParse, trace_.source + ": malformed JSON at byte " +
                                          std::to_string(offset) + ": " +
                                          simdjson::error_message(code));
}

Status EventParser::ParseChunk(std::string_view chunk, size_t file_offset) {
  size_t needed = chunk.size() + 2 + simdjson::SIMDJSON_PADDING;
  if (buffer_.size() < needed) buffer_.resize(needed);
  buffer_[0] = '[';
  std::memcpy(buffer_.data() + 1, chunk.data(), chunk.size());
  buffer_[chunk.size() + 1] = ']';
  std::memset(buffer_.data() + chunk.size() + 2, ' ', simdjson::SIMDJSON_PADDING);
  return ParseDocument(buffer_.data(), buffer_.size(), chunk, file_offset);
}

Status EventParser::ParseChunkInPlace(char* chunk, size_t size, size_t file_offset) {
  char* open = chunk - 1;
  char* close = chunk + size;
  // The padding too is made what a copy's is (spaces): on malformed text simdjson's on-demand
  // iterator looks at the byte past the document's end, and the error it reports must not depend
  // on the text that follows the chunk.
  std::array<char, 1 + simdjson::SIMDJSON_PADDING> after;
  const char before = *open;
  std::memcpy(after.data(), close, after.size());
  *open = '[';
  *close = ']';
  std::memset(close + 1, ' ', simdjson::SIMDJSON_PADDING);
  Status status = ParseDocument(open, size + 2 + simdjson::SIMDJSON_PADDING,
                                std::string_view(chunk, size), file_offset);
  *open = before;
  std::memcpy(close, after.data(), after.size());
  return status;
}

Status EventParser::ParseDocument(const char* document, size_t capacity, std::string_view chunk,
                                  size_t file_offset) {
  document_ = document;
  od::document doc;
  auto code = parser_.iterate(document, chunk.size() + 2, capacity).get(doc);
  if (code) return ChunkError(code, file_offset, chunk, nullptr);
  od::array events;
  if ((code = doc.get_array().get(events))) return ChunkError(code, file_offset, chunk, nullptr);
  for (auto item : events) {
    // The object by reference where get_object built it (no copy: see ParseEvent).
    auto object = item.get_object();
    code = object.error();
    if (!code) {
      Status status = ParseEvent(object.value_unsafe());
      if (status.ok()) continue;
      const char* where = nullptr;
      if (doc.current_location().get(where)) where = nullptr;
      return ChunkError(simdjson::TAPE_ERROR, file_offset, chunk, where);
    }
    const char* where = nullptr;
    if (doc.current_location().get(where)) where = nullptr;
    if (code == simdjson::INCORRECT_TYPE) {
      // Valid JSON of the wrong shape (an array of numbers) is not "malformed JSON".
      const std::string message = ChunkError(code, file_offset, chunk, where).message;
      const size_t at = message.find(" at byte ");
      const std::string byte =
          at == std::string::npos ? "" : message.substr(at, message.find(':', at + 1) - at);
      return MakeError(ErrorCode::kParse,
                       trace_.source + ": not a trace: an element of the event array" + byte +
                           " is not a JSON object (every trace event is an object)");
    }
    return ChunkError(code, file_offset, chunk, where);
  }
  // The array must end where the chunk ends: text after an early ']' is an error, not ignored.
  const char* where = nullptr;
  if (doc.current_location().get(where) != simdjson::OUT_OF_BOUNDS) {
    return ChunkError(simdjson::TAPE_ERROR, file_offset, chunk, where);
  }
  return Status::Ok();
}

EventParser::Checkpoint EventParser::Mark() const {
  return {trace_.events.size(),
          trace_.memory.size(),
          trace_.dims.size(),
          trace_.flow_events,
          trace_.skipped_events,
          trace_.metadata_events,
          trace_.elements_without_ts,
          trace_.memory_bandwidth_gbps.size(),
          trace_.event_waits.size(),
          open_begins_,
          dropped_begins_,
          next_file_index_};
}

void EventParser::Rollback(const Checkpoint& mark) {
  trace_.events.resize(mark.events);
  trace_.memory.resize(mark.memory);
  trace_.dims.resize(mark.dims);
  trace_.flow_events = mark.flow_events;
  trace_.skipped_events = mark.skipped_events;
  trace_.metadata_events = mark.metadata_events;
  trace_.elements_without_ts = mark.elements_without_ts;
  trace_.memory_bandwidth_gbps.resize(mark.memory_bandwidth);
  trace_.event_waits.resize(mark.event_waits);
  // Begin events the undone chunk ended are open again.
  open_begins_ = mark.open_begins;
  dropped_begins_ = mark.dropped_begins;
  next_file_index_ = mark.next_file_index;
  for (const auto& [thread, stack] : open_begins_) {
    for (uint32_t index : stack) {
      trace_.events[index].phase = 'B';
      trace_.events[index].dur_ns = 0;
    }
  }
}

namespace {
uint64_t ThreadKey(int32_t pid, int32_t tid) {
  return (uint64_t{static_cast<uint32_t>(pid)} << 32) | static_cast<uint32_t>(tid);
}
}  // namespace

void EventParser::BeginDuration(uint32_t index) {
  const TraceEvent& event = trace_.events[index];
  open_begins_[ThreadKey(event.pid, event.tid)].push_back(index);
}

void EventParser::EndDuration(int32_t pid, int32_t tid, int64_t ts_ns) {
  auto stack = open_begins_.find(ThreadKey(pid, tid));
  if (stack == open_begins_.end() || stack->second.empty()) {
    ++trace_.skipped_events;  // an end without a begin
    return;
  }
  TraceEvent& begin = trace_.events[stack->second.back()];
  stack->second.pop_back();
  if (stack->second.empty()) open_begins_.erase(stack);
  const int64_t dur = ts_ns - begin.ts_ns;
  constexpr int64_t kMaxDur = int64_t{1} << 48;
  if (dur < 0 || dur >= kMaxDur) {  // ends before it begins, or implausibly long: both dropped
    begin.phase = 'D';
    ++dropped_begins_;
    trace_.skipped_events += 2;
    return;
  }
  begin.dur_ns = dur;
  begin.phase = 'X';
}

Status EventParser::ParseEvent(od::object& object) {
  TraceEvent event;
  event.file_index = static_cast<uint32_t>(std::min<uint64_t>(next_file_index_++, UINT32_MAX));
  char phase = 0;
  bool has_ts = false;
  bool saw_ts = false;        // a `ts` key, usable or not
  bool bad_duration = false;  // "dur" present but negative, NaN or unreadable
  bool has_category = false;
  bool has_duration = false;
  bool dims_pending = false;
  size_t dims_start = trace_.dims.size();
  concrete_.clear();
  uint32_t metadata_name = 0;  // args.name of M events
  MemorySample memory;
  Trace::EventWait wait;  // args.wait_on_* of CUDA event waits
  bool waits = false;
  for (auto field_result : object) {
    // The field and its value by reference, where the iterator built them: copying them (a
    // 24-byte pair just written by 8- and 4-byte stores, read back by 16-byte loads) stalls on
    // store-to-load forwarding, which was most of this function's time.
    if (field_result.error()) return MakeError(ErrorCode::kParse, "bad field");
    od::field& field = field_result.value_unsafe();
    std::string_view key = KeyOf(field);
    od::value& value = field.value();
    switch (key.size()) {
      case 2:
        if (Is(key, "ph")) {
          std::string_view ph = ScalarText(value);
          phase = ph.empty() ? 0 : ph[0];
          if (phase == 's' || phase == 'f' || phase == 't') {
            // Flow ends (a quarter of a Kineto trace) are only counted: the rest of the object
            // is skipped unread.
            ++trace_.flow_events;
            trace_.dims.resize(dims_start);
            return Status::Ok();
          }
        } else if (Is(key, "ts")) {
          std::string_view ts = ScalarText(value);
          saw_ts = true;
          // A fraction or exponent anywhere: HTA then rounds (hta_convention.h).
          has_ts = MicrosTextToNanos(ts, &event.ts_ns, &trace_.fractional_timestamps,
                                     simdjson::SIMDJSON_PADDING);
        }
        break;
      case 3:
        if (Is(key, "cat")) {
          std::string_view cat;
          if (!StringOf(value, &cat)) break;
          event.category = InternName(cat);
          has_category = true;
        } else if (Is(key, "dur")) {
          // A negative, NaN or unreadable duration makes the event unusable: it is skipped and
          // counted in skipped_events, never analysed as a zero-length event.
          has_duration = true;
          if (!MicrosTextToNanos(ScalarText(value), &event.dur_ns, nullptr,
                                 simdjson::SIMDJSON_PADDING) ||
              event.dur_ns < 0) {
            event.dur_ns = 0;
            bad_duration = true;
          }
        } else if (Is(key, "pid") || Is(key, "tid")) {
          int32_t id = 0;
          int64_t number = 0;
          std::string_view token = value.raw_json_token();
          if (token.empty()) break;
          // A repeated key: the last one wins, its kind as well as its value.
          const uint8_t string_flag = Is(key, "pid") ? kHtaStringPid : kHtaStringTid;
          event.hta_flags &= static_cast<uint8_t>(~string_flag);
          if (token[0] == '"') {
            std::string_view text;
            if (!StringOf(value, &text)) break;
            id = InternId(text);
            // HTA's pid/tid column is then of Python objects (idempotent: no rollback needed).
            (Is(key, "pid") ? trace_.string_pids : trace_.string_tids) = true;
            event.hta_flags |= string_flag;
          } else if (IntegerOf(value, &number)) {
            id = static_cast<int32_t>(number);
          }
          (Is(key, "pid") ? event.pid : event.tid) = id;
        }
        break;
      case 4:
        if (Is(key, "name")) {
          std::string_view name;
          if (!StringOf(value, &name)) break;
          event.name = InternName(name);
        } else if (Is(key, "args")) {
          od::object args;
          if (value.get_object().get(args)) break;
          for (auto arg_result : args) {
            if (arg_result.error()) return MakeError(ErrorCode::kParse, "bad argument");
            od::field& arg = arg_result.value_unsafe();  // by reference, as the fields above
            std::string_view akey = KeyOf(arg);
            od::value& avalue = arg.value();
            int64_t number = 0;
            if (Is(akey, "correlation")) {
              if (IntegerOf(avalue, &number)) event.correlation = number;
            } else if (Is(akey, "External id") || Is(akey, "external id")) {
              if (IntegerOf(avalue, &number)) event.external_id = number;
            } else if (Is(akey, "stream")) {
              if (IntegerOf(avalue, &number)) {
                event.stream = static_cast<int32_t>(number);
                if (number != event.stream) event.hta_flags |= kHtaStreamWide;
              }
              if (!PythonIntAccepts(avalue)) event.hta_flags |= kHtaStreamNotInteger;
            } else if (Is(akey, "device")) {
              if (IntegerOf(avalue, &number)) event.device = static_cast<int32_t>(number);
            } else if (Is(akey, "bytes")) {
              if (IntegerOf(avalue, &number)) event.bytes = number;
            } else if (Is(akey, "memory bandwidth (GB/s)")) {
              double gbps = 0;
              if (!avalue.get_double().get(gbps)) {
                trace_.memory_bandwidth_gbps.emplace_back(event.file_index, gbps);
              }
            } else if (Is(akey, "Bytes")) {
              if (IntegerOf(avalue, &number)) memory.bytes = number;
            } else if (Is(akey, "Total Allocated")) {
              if (IntegerOf(avalue, &number)) memory.total_allocated = number;
            } else if (Is(akey, "Total Reserved")) {
              if (IntegerOf(avalue, &number)) memory.total_reserved = number;
            } else if (Is(akey, "Device Type")) {
              if (IntegerOf(avalue, &number)) memory.device_type = static_cast<int32_t>(number);
            } else if (Is(akey, "Device Id")) {
              if (IntegerOf(avalue, &number)) memory.device_id = static_cast<int32_t>(number);
            } else if (Is(akey, "Input Dims")) {
              // Kept only for the FLOP-counting ops (roofline points, MFU); the name may come
              // later.
              if (event.name != 0 && !(NameFlags(event.name) & kShapeName)) continue;
              if (ReadDims(avalue, trace_.dims)) {
                dims_pending = true;
              } else {
                trace_.dims.resize(dims_start);
              }
            } else if (Is(akey, "Concrete Inputs")) {
              if (event.name != 0 && !(NameFlags(event.name) & kConcreteName)) continue;
              if (!ReadConcreteInputs(avalue, concrete_)) concrete_.clear();
            } else if (Is(akey, "Input type")) {
              // Only matrix products and convolutions need it (tensor-core eligibility, GEMM
              // bytes).
              if (event.name != 0 && !(NameFlags(event.name) & kInputTypeName)) continue;
              od::array types;
              if (avalue.get_array().get(types)) continue;
              for (auto t : types) {
                std::string_view text;
                if (!t.get_string().get(text)) event.input_type = trace_.strings.Intern(text);
                break;
              }
            } else if (Is(akey, "wait_on_stream")) {
              if (IntegerOf(avalue, &number) && number == static_cast<int32_t>(number)) {
                wait.stream = static_cast<int32_t>(number);
                waits = true;
              }
            } else if (Is(akey, "wait_on_cuda_event_record_corr_id")) {
              if (IntegerOf(avalue, &number)) {
                wait.record_correlation = number;
                waits = true;
              }
            } else if (Is(akey, "Module Hierarchy")) {
              std::string_view text;
              if (StringOf(avalue, &text)) event.module = InternName(text);
            } else if (Is(akey, "name")) {
              std::string_view text;
              if (!avalue.get_string().get(text)) metadata_name = trace_.strings.Intern(text);
            }
          }
        }
        break;
      default:
        break;
    }
  }
  if (!saw_ts) ++trace_.elements_without_ts;  // pandas' ts column of HTA is then float64
  if (phase == 'M') {
    ++trace_.metadata_events;
    // JAX/XLA: processes named "/device:GPU:0" (or TPU) hold the device's ops.
    if (event.name == process_name_ && metadata_name != 0) {
      std::string_view pname = trace_.strings.Get(metadata_name);
      if (pname.rfind("/device:", 0) == 0) {
        size_t colon = pname.rfind(':');
        device_pids_[event.pid] = std::atoi(std::string(pname.substr(colon + 1)).c_str());
      }
    }
    trace_.dims.resize(dims_start);
    return Status::Ok();
  }
  if (phase == 's' || phase == 'f' || phase == 't') {
    ++trace_.flow_events;
    trace_.dims.resize(dims_start);
    return Status::Ok();
  }
  if (phase != 'X' && phase != 'i' && phase != 'I' && phase != 'B' && phase != 'E') {
    trace_.dims.resize(dims_start);
    return Status::Ok();  // counters and async events are not analysed
  }
  // Bounds that keep every sum and difference of the analyses inside int64: -2^60 < ts < 2^62 ns
  // (year 2116), dur < 2^48 ns (3 days), byte counts < 2^48.
  constexpr int64_t kMaxTs = int64_t{1} << 62, kMaxDur = int64_t{1} << 48,
                    kMaxBytes = int64_t{1} << 48;
  if (has_ts && (bad_duration || event.ts_ns >= kMaxTs || event.ts_ns <= -(kMaxTs >> 2) ||
                 event.dur_ns >= kMaxDur)) {
    has_ts = false;
  }
  if (event.bytes >= kMaxBytes || event.bytes < -1) event.bytes = -1;
  if (memory.bytes >= kMaxBytes || memory.bytes <= -kMaxBytes) memory.bytes = 0;
  if (!has_ts) {
    ++trace_.skipped_events;
    trace_.dims.resize(dims_start);
    return Status::Ok();
  }
  if (phase == 'E') {
    trace_.dims.resize(dims_start);
    EndDuration(event.pid, event.tid, event.ts_ns);
    return Status::Ok();
  }
  if (event.name == memory_name_ && phase != 'B') {
    memory.ts_ns = event.ts_ns;
    memory.pid = event.pid;
    memory.tid = event.tid;
    trace_.memory.push_back(memory);
    trace_.dims.resize(dims_start);
    return Status::Ok();
  }
  event.phase = phase == 'I' ? 'i' : phase;
  if (!has_category) event.hta_flags |= kHtaNoCategory;
  if (!has_duration) event.hta_flags |= kHtaNoDuration;
  if (has_category) {
    event.kind = KindOfCategory(event.category);
  } else {
    auto device = device_pids_.find(event.pid);
    if (device != device_pids_.end()) {
      event.kind = EventKind::kKernel;  // refined by thread name in Finish()
      event.device = device->second;
      event.stream = event.tid;
    } else if (trace_.format == TraceFormat::kJax ||
               // PyTorch's legacy export (torch built without Kineto, profiler_util.py's
               // export_chrome_trace): a bare array, no `cat`, operators on pid "CPU functions".
               (event.pid < 0 &&
                trace_.strings.Get(static_cast<uint32_t>(-1 - event.pid)) == "CPU functions")) {
      event.kind = EventKind::kCpuOp;
    }
  }
  if (dims_pending && (NameFlags(event.name) & kShapeName)) {
    event.input_dims = static_cast<int32_t>(dims_start);
    // Then the Concrete Inputs block (empty for the ops that do not need one).
    if (!concrete_.empty() && (NameFlags(event.name) & kConcreteName)) {
      trace_.dims.insert(trace_.dims.end(), concrete_.begin(), concrete_.end());
    } else {
      trace_.dims.push_back(0);
    }
  } else {
    trace_.dims.resize(dims_start);
  }
  if (event.kind != EventKind::kCpuOp || !(NameFlags(event.name) & kInputTypeName)) {
    event.input_type = 0;
  }
  if (phase == 'B') {
    event.dur_ns = 0;
    if (trace_.events.size() >= UINT32_MAX) {
      ++trace_.skipped_events;
      trace_.dims.resize(dims_start);
      return Status::Ok();
    }
    trace_.events.push_back(event);
    BeginDuration(static_cast<uint32_t>(trace_.events.size() - 1));
    return Status::Ok();
  }
  if (waits) {
    wait.file_index = event.file_index;
    trace_.event_waits.push_back(wait);
  }
  trace_.events.push_back(event);
  return Status::Ok();
}

void SortEventsByStart(std::vector<TraceEvent>& events) {
  // Sorting 24-byte keys and then moving each 88-byte event once is several times faster than
  // sorting the events themselves. At equal start the longer event, the enclosing one, comes
  // first; then file order, so the result does not depend on the sort's internals.
  struct Key {
    int64_t ts_ns;
    int64_t dur_ns;
    uint32_t index;
  };
  if (events.size() > UINT32_MAX) {  // beyond the 32-bit index: sort the events themselves
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
      return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.dur_ns > b.dur_ns;
    });
    return;
  }
  std::vector<Key> keys(events.size());
  bool sorted = true;
  for (uint32_t i = 0; i < events.size(); ++i) {
    keys[i] = {events[i].ts_ns, events[i].dur_ns, i};
    if (i > 0 && (keys[i].ts_ns < keys[i - 1].ts_ns ||
                  (keys[i].ts_ns == keys[i - 1].ts_ns && keys[i].dur_ns > keys[i - 1].dur_ns))) {
      sorted = false;
    }
  }
  if (sorted) return;
  // Merge sort: traces are long sorted runs (one per thread or stream, interleaved), a pattern
  // on which introsort's pivots degrade into its heap-sort fallback.
  std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.dur_ns > b.dur_ns;
  });
  // Apply the permutation in place, one cycle at a time: position j receives events[from[j]].
  std::vector<uint32_t> from(keys.size());
  for (size_t j = 0; j < keys.size(); ++j) from[j] = keys[j].index;
  std::vector<Key>().swap(keys);
  for (uint32_t i = 0; i < from.size(); ++i) {
    if (from[i] == i) continue;
    TraceEvent held = events[i];
    uint32_t j = i;
    while (from[j] != i) {
      uint32_t k = from[j];
      events[j] = events[k];
      from[j] = j;
      j = k;
    }
    events[j] = held;
    from[j] = j;
  }
}

void EventParser::Finish() {
  if (saw_2021_categories_) trace_.format = TraceFormat::kKineto2021;
  // Begin events never ended (the trace stopped inside them) and those ended before they began.
  int64_t open = dropped_begins_;
  for (const auto& [thread, stack] : open_begins_) open += static_cast<int64_t>(stack.size());
  if (open > 0) {
    std::erase_if(trace_.events,
                  [](const TraceEvent& e) { return e.phase == 'B' || e.phase == 'D'; });
    trace_.skipped_events += open - dropped_begins_;  // dropped ones were counted at their end
    open_begins_.clear();
    dropped_begins_ = 0;
  }
  SortEventsByStart(trace_.events);
  std::stable_sort(trace_.memory.begin(), trace_.memory.end(),
                   [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
  trace_.dims.shrink_to_fit();
}

}  // namespace xpuperf::trace::internal

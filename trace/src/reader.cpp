// The top level of a Chrome-trace file: a light scanner walks the outer object, hands the
// traceEvents array to the event parser in chunks of whole events, and parses the small header
// values (distributedInfo, deviceProperties, ...) with simdjson.
#include "xpuperf/trace/reader.h"

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "event_parser.h"
#include "inflating_text.h"
#include "json_blocks.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/trace/xplane.h"

namespace xpuperf::trace {
namespace {

namespace od = simdjson::ondemand;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// How far past a position the reader asks a streamed text for at once.
constexpr size_t kReadAhead = size_t{1} << 20;

class TopLevelScanner {
 public:
  // `stream`: the text is being inflated into `json` (it is then read only as far as the
  // inflater got, and the pages released are handed to it); nullptr when `json` is all there.
  TopLevelScanner(std::string_view json, Trace& trace, const ParseOptions& options,
                  internal::InflatingText* stream = nullptr)
      : json_(json),
        trace_(trace),
        chunk_bytes_(std::max<size_t>(options.chunk_bytes, 1)),
        release_(options.release_consumed),
        speculate_(options.guess_chunk_ends),
        writable_(options.writable_text),
        padding_(options.writable_text ? options.writable_padding : 0),
        stream_(stream),
        available_(stream ? 0 : json.size()) {}

  Status Run();

 private:
  // Makes [0, min(end, size)) readable: waits for a streamed text's inflater. Returns the end of
  // the readable range.
  size_t Ensure(size_t end) const {
    if (end > available_ && stream_ != nullptr) available_ = stream_->WaitFor(end);
    return available_;
  }
  size_t SkipSpace(size_t pos) const {
    while (pos < json_.size() && (pos < available_ || Ensure(pos + kReadAhead) > pos) &&
           IsSpace(json_[pos])) {
      ++pos;
    }
    return pos;
  }
  Error At(size_t pos, const std::string& what) const {
    if (pos >= json_.size()) {
      return MakeError(ErrorCode::kParse, trace_.source + ": truncated at byte " +
                                              std::to_string(json_.size()) + " (" + what + ")");
    }
    return MakeError(ErrorCode::kParse, trace_.source + ": malformed JSON at byte " +
                                            std::to_string(pos) + ": " + what);
  }
  // Position after the string opening at `pos` (a quote), or npos when unterminated.
  size_t SkipString(size_t pos) const;
  // Position after the value starting at `pos`; errors name the offset.
  Result<size_t> SkipValue(size_t pos) const;
  Result<size_t> ParseEvents(size_t pos, internal::EventParser& parser);
  // Guesses where the chunk from `start` could end: the ',' of the first "}, {" at least
  // chunk_bytes_ on. npos when there is none nearby.
  size_t GuessChunkEnd(size_t start) const;
  // Scans from `start` (outside any string, between two events) to the end of one chunk, parses
  // it and returns where the next starts; or, at the array's ']', parses the rest and returns
  // npos with *end set past the ']'.
  Result<size_t> ScanOneChunk(size_t start, size_t array_open, internal::EventParser& parser,
                              size_t* end);
  Status ParseHeaderValue(std::string_view key, std::string_view text, size_t offset);
  // Parses the events of json_[start, end): where they lie when the text is writable and padded
  // by the text after them, else as a copy.
  Status ParseChunk(internal::EventParser& parser, size_t start, size_t end) const;

  // Returns the whole pages of [released_, end) to the system (release_ mode only).
  void ReleaseUpTo(size_t end);

  std::string_view json_;
  Trace& trace_;
  size_t chunk_bytes_;
  bool release_;
  bool speculate_;
  bool writable_;
  size_t padding_;  // writable bytes past json_'s end
  int failed_guesses_ = 0;
  size_t released_ = 0;
  internal::InflatingText* stream_;
  mutable size_t available_;  // json_[0, available_) is readable
};

void TopLevelScanner::ReleaseUpTo(size_t end) {
  if (!release_ || end <= released_) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto lo = reinterpret_cast<uintptr_t>(json_.data() + released_);
  auto hi = reinterpret_cast<uintptr_t>(json_.data() + end);
  lo = (lo + page - 1) & ~(page - 1);
  hi &= ~(page - 1);
  if (hi > lo + (1 << 20)) {  // in steps of at least 1 MiB
    // A streamed text's pages go ahead of its inflater; the others back to the system.
    // NOLINTNEXTLINE(performance-no-int-to-ptr): page-aligned bounds inside json_
    void* pages = reinterpret_cast<void*>(lo);
    if (stream_ == nullptr || !stream_->Recycle(pages, hi - lo)) {
      madvise(pages, hi - lo, MADV_DONTNEED);
    }
    released_ = end;
    if (stream_ != nullptr) stream_->Released(end);
  }
}

size_t TopLevelScanner::SkipString(size_t pos) const {
  const char* data = json_.data();
  size_t i = pos + 1;
  for (;;) {
    const size_t limit = std::min(Ensure(i + kReadAhead), json_.size());
    if (i >= limit) return std::string_view::npos;
    const void* q = std::memchr(data + i, '"', limit - i);
    if (!q) {
      if (limit == json_.size()) return std::string_view::npos;
      i = limit;  // a streamed text: look further once it is there
      continue;
    }
    size_t at = static_cast<size_t>(static_cast<const char*>(q) - data);
    size_t slashes = 0;
    while (at - slashes > pos && data[at - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return at + 1;
    i = at + 1;
  }
}

Result<size_t> TopLevelScanner::SkipValue(size_t pos) const {
  pos = SkipSpace(pos);
  if (pos >= json_.size()) return At(pos, "value expected");
  char c = json_[pos];
  if (c == '"') {
    size_t end = SkipString(pos);
    if (end == std::string_view::npos) return At(json_.size(), "unterminated string");
    return end;
  }
  if (c != '{' && c != '[') {
    size_t end = pos;
    while (end < json_.size() && (end < available_ || Ensure(end + kReadAhead) > end) &&
           json_[end] != ',' && json_[end] != '}' && json_[end] != ']' && !IsSpace(json_[end])) {
      ++end;
    }
    if (end == pos) return At(pos, "value expected");
    return end;
  }
  int depth = 0;
  for (size_t i = pos; i < json_.size(); ++i) {
    if (i >= available_) Ensure(i + kReadAhead);
    char ch = json_[i];
    if (ch == '"') {
      i = SkipString(i);
      if (i == std::string_view::npos) return At(json_.size(), "unterminated string");
      --i;
    } else if (ch == '{' || ch == '[') {
      ++depth;
    } else if (ch == '}' || ch == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return At(json_.size(), "unterminated object or array opened at byte " + std::to_string(pos));
}

Status TopLevelScanner::ParseChunk(internal::EventParser& parser, size_t start, size_t end) const {
  // In place: the chunk sits between a ',' or '[' and a ',' or ']', and simdjson's padding past
  // that closing byte is text already there (all inflated, for a streamed text), or the writable
  // padding past the text's end.
  const size_t padded_end = end + 1 + simdjson::SIMDJSON_PADDING;
  const size_t readable_end = std::min(padded_end, json_.size());
  if (writable_ && start > 0 && padded_end <= json_.size() + padding_ &&
      Ensure(readable_end) >= readable_end) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): writable_text: the caller's memory
    char* text = const_cast<char*>(json_.data());
    return parser.ParseChunkInPlace(text + start, end - start, start);
  }
  return parser.ParseChunk(json_.substr(start, end - start), start);
}

size_t TopLevelScanner::GuessChunkEnd(size_t start) const {
  const char* data = json_.data();
  size_t size = json_.size();
  size_t limit = std::min(size, start + 2 * chunk_bytes_);
  Ensure(limit + 64);  // the "}, {" found near the limit is read past it
  for (size_t i = start + chunk_bytes_; i < limit;) {
    const void* hit = std::memchr(data + i, '}', limit - i);
    if (!hit) return std::string_view::npos;
    size_t brace = static_cast<size_t>(static_cast<const char*>(hit) - data);
    size_t comma = SkipSpace(brace + 1);
    if (comma < size && data[comma] == ',') {
      size_t next = SkipSpace(comma + 1);
      if (next < size && data[next] == '{') return comma;
    }
    i = brace + 1;
  }
  return std::string_view::npos;
}

Result<size_t> TopLevelScanner::ParseEvents(size_t pos, internal::EventParser& parser) {
  // Fast path: guess where a chunk ends ("}, {" past chunk_bytes_) and let simdjson parse it. A
  // wrong guess (inside a string, inside a nested object, past the array) cannot parse as a
  // whole array of events: simdjson reports an unclosed string or a broken structure, or the
  // array ends early. Then the events of that attempt are undone and the chunk is found exactly.
  size_t chunk_start = pos + 1;
  for (;;) {
    // A chunk is ~kDefaultChunkBytes (milliseconds of work): Ctrl-C stops a long parse promptly.
    XPUPERF_RETURN_IF_ERROR(CheckCancelled());
    if (speculate_) {
      size_t guess = GuessChunkEnd(chunk_start);
      if (guess != std::string_view::npos) {
        internal::EventParser::Checkpoint mark = parser.Mark();
        if (ParseChunk(parser, chunk_start, guess).ok()) {
          ReleaseUpTo(guess);
          chunk_start = guess + 1;
          continue;
        }
        parser.Rollback(mark);
        // Guesses keep failing where "}, {" also occurs inside events: stop guessing.
        if (++failed_guesses_ >= 8) speculate_ = false;
      }
    }
    size_t end = 0;
    XPUPERF_ASSIGN_OR_RETURN(size_t next, ScanOneChunk(chunk_start, pos, parser, &end));
    if (next == std::string_view::npos) return end;
    chunk_start = next;
  }
}

Result<size_t> TopLevelScanner::ScanOneChunk(size_t start, size_t array_open,
                                             internal::EventParser& parser, size_t* end) {
  // Only brackets outside strings matter: an event ends where the depth returns to 0. Blocks of
  // 64 bytes are classified into bit masks and only the brackets' bits are visited.
  const char* data = json_.data();
  size_t size = json_.size();
  int64_t depth = 0;
  internal::StringTracker strings;
  for (size_t block = start; block < size; block += 64) {
    if (block + 64 > available_) Ensure(block + 64 + kReadAhead);
    size_t n = std::min<size_t>(64, size - block);
    internal::BlockMasks m =
        n == 64 ? internal::ClassifyBlock(data + block) : internal::ClassifyBytes(data + block, n);
    uint64_t outside = ~strings.InString(m);
    for (uint64_t bits = (m.open | m.close) & outside; bits != 0; bits &= bits - 1) {
      int bit = __builtin_ctzll(bits);
      size_t i = block + static_cast<size_t>(bit);
      if ((m.open >> bit) & 1) {
        ++depth;
        continue;
      }
      if (depth > 0) {
        // An event ended. Once the chunk is big enough, cut at the comma that follows.
        if (--depth == 0 && i + 1 - start >= chunk_bytes_) {
          size_t comma = SkipSpace(i + 1);
          if (comma < size && data[comma] == ',') {
            XPUPERF_RETURN_IF_ERROR(ParseChunk(parser, start, comma));
            ReleaseUpTo(comma);
            return comma + 1;
          }
        }
        continue;
      }
      if (data[i] != ']') return At(i, "unbalanced '}' in traceEvents");
      size_t first = start;
      while (first < i && IsSpace(data[first])) ++first;
      if (first < i) XPUPERF_RETURN_IF_ERROR(ParseChunk(parser, start, i));
      *end = i + 1;
      return std::string_view::npos;
    }
  }
  return MakeError(ErrorCode::kParse, trace_.source + ": truncated at byte " +
                                          std::to_string(size) +
                                          " (traceEvents array opened at byte " +
                                          std::to_string(array_open) + " never closes)");
}

Status TopLevelScanner::ParseHeaderValue(std::string_view key, std::string_view text,
                                         size_t offset) {
  simdjson::padded_string padded(text);
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded).get(doc)) return Status::Ok();
  if (key == "distributedInfo") {
    od::object info;
    if (doc.get_object().get(info)) return Status::Ok();
    trace_.has_distributed_info = true;
    for (auto field : info) {
      std::string_view name;
      if (field.unescaped_key().get(name)) continue;
      od::value value = field.value();
      if (name == "rank" || name == "world_size") {
        int64_t number = -1;
        if (value.get_int64().get(number)) {
          std::string_view s;
          if (!value.get_string().get(s)) number = std::atoll(std::string(s).c_str());
        }
        (name == "rank" ? trace_.rank : trace_.world_size) = static_cast<int>(number);
      } else if (name == "backend") {
        std::string_view s;
        if (!value.get_string().get(s)) trace_.backend = std::string(s);
      }
    }
  } else if (key == "deviceProperties") {
    od::array list;
    if (doc.get_array().get(list)) return Status::Ok();
    for (auto item : list) {
      od::object object;
      if (item.get_object().get(object)) continue;
      DeviceProperties props;
      for (auto field : object) {
        std::string_view name;
        if (field.unescaped_key().get(name)) continue;
        od::value value = field.value();
        int64_t number = 0;
        if (name == "name") {
          std::string_view s;
          if (!value.get_string().get(s)) props.name = std::string(s);
        } else if (value.get_int64().get(number)) {
          continue;
        } else if (name == "id") {
          props.id = static_cast<int>(number);
        } else if (name == "totalGlobalMem") {
          props.total_global_mem = number;
        } else if (name == "computeMajor") {
          props.compute_major = static_cast<int>(number);
        } else if (name == "computeMinor") {
          props.compute_minor = static_cast<int>(number);
        } else if (name == "numSms") {
          props.num_sms = static_cast<int>(number);
        }
      }
      trace_.devices.push_back(std::move(props));
    }
  } else if (key == "displayTimeUnit") {
    std::string_view s;
    if (!doc.get_string().get(s)) trace_.display_time_unit = std::string(s);
  } else if (key == "baseTimeNanoseconds") {
    int64_t number = 0;
    uint64_t unsigned_number = 0;
    if (!doc.get_int64().get(number)) {
      trace_.base_time_ns = number;
    } else if (!doc.get_uint64().get(unsigned_number)) {
      trace_.base_time_ns = static_cast<int64_t>(unsigned_number);
    }
  } else if (key == "metadata") {
    // JAX/XLA writes {"highres-ticks": true}; other producers (xpuperf's tracer) write their own.
    od::object metadata;
    if (doc.get_object().get(metadata)) return Status::Ok();
    for (auto field : metadata) {
      std::string_view name;
      if (!field.unescaped_key().get(name) && name == "highres-ticks")
        trace_.format = TraceFormat::kJax;
    }
  } else if (key == "schemaVersion") {
    if (trace_.format == TraceFormat::kUnknown) trace_.format = TraceFormat::kKineto;
  }
  (void)offset;
  return Status::Ok();
}

Status TopLevelScanner::Run() {
  internal::EventParser parser(trace_);
  size_t pos = SkipSpace(0);
  if (pos >= json_.size()) return MakeError(ErrorCode::kParse, trace_.source + ": empty file");
  if (json_[pos] == '[') {
    // The JSON Array Format: the file is the event list itself.
    XPUPERF_ASSIGN_OR_RETURN(size_t end, ParseEvents(pos, parser));
    end = SkipSpace(end);
    if (end < json_.size()) return At(end, "unexpected text after the event array");
    parser.Finish();
    return Status::Ok();
  }
  if (json_[pos] != '{') {
    return MakeError(
        ErrorCode::kParse,
        trace_.source + ": not a trace: expected '{' or '[' at byte " + std::to_string(pos));
  }
  bool saw_events = false;
  ++pos;
  for (;;) {
    pos = SkipSpace(pos);
    if (pos >= json_.size()) return At(pos, "object not closed");
    if (json_[pos] == '}') {
      ++pos;
      break;
    }
    if (json_[pos] != '"') return At(pos, "expected a key");
    size_t key_end = SkipString(pos);
    if (key_end == std::string_view::npos) return At(json_.size(), "unterminated key");
    std::string_view key = json_.substr(pos + 1, key_end - pos - 2);
    pos = SkipSpace(key_end);
    if (pos >= json_.size()) return At(pos, "':' expected");
    if (json_[pos] != ':') return At(pos, "':' expected");
    pos = SkipSpace(pos + 1);
    if (key == "traceEvents") {
      if (pos >= json_.size()) return At(pos, "traceEvents value expected");
      if (json_[pos] != '[') {
        // Valid JSON of another shape is not malformed: it is not a trace.
        if (!SkipValue(pos).ok()) return At(pos, "traceEvents is not an array");
        return MakeError(ErrorCode::kParse, trace_.source + ": not a trace: traceEvents (at byte " +
                                                std::to_string(pos) + ") is not an array");
      }
      XPUPERF_ASSIGN_OR_RETURN(pos, ParseEvents(pos, parser));
      saw_events = true;
    } else {
      XPUPERF_ASSIGN_OR_RETURN(size_t end, SkipValue(pos));
      XPUPERF_RETURN_IF_ERROR(ParseHeaderValue(key, json_.substr(pos, end - pos), pos));
      pos = end;
    }
    pos = SkipSpace(pos);
    if (pos >= json_.size()) return At(pos, "object not closed");
    if (json_[pos] == ',') {
      ++pos;
    } else if (json_[pos] != '}') {
      return At(pos, "expected ',' or '}'");
    }
  }
  pos = SkipSpace(pos);
  if (pos < json_.size()) return At(pos, "unexpected text after the top-level object");
  if (!saw_events) {
    return MakeError(ErrorCode::kParse,
                     trace_.source + ": not a trace: the top-level object has no traceEvents");
  }
  parser.Finish();
  return Status::Ok();
}

}  // namespace

namespace {

Result<Trace> ParseText(std::string_view json, std::string source, const ParseOptions& options,
                        internal::InflatingText* stream) {
  Trace trace;
  trace.source = std::move(source);
  trace.input_bytes = static_cast<int64_t>(json.size());
  // Room for the events up front (a Kineto event is rarely under 128 bytes of JSON), so the vector
  // is not copied as it grows; pages never written cost nothing. Capped at a quarter of RAM.
  static const size_t kRam =
      static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // A streamed gzip's text size is its trailer's claim: what its compressed size can hold bounds
  // it, so that a small file claiming gigabytes does not reserve them.
  constexpr size_t kMaxDeflateRatio = 1032;
  const size_t text_bytes =
      stream == nullptr ? json.size()
                        : std::min(json.size(), stream->compressed_size() * kMaxDeflateRatio);
  trace.events.reserve(std::min(text_bytes / 128, kRam / 4 / sizeof(TraceEvent)));
  TopLevelScanner scanner(json, trace, options, stream);
  XPUPERF_RETURN_IF_ERROR(scanner.Run());
  return trace;
}

}  // namespace

Result<std::optional<Trace>> internal::ReadStreamedGzip(const std::string& path,
                                                        const InflatingText::Limits& limits) {
  XPUPERF_ASSIGN_OR_RETURN(auto started, internal::InflatingText::Start(path, limits));
  if (!started) return std::optional<Trace>();
  internal::InflatingText& text = *started;
  ParseOptions options;
  options.release_consumed = true;
  options.writable_text = true;  // the inflater's own buffer
  options.writable_padding = text.padding();
  Result<Trace> parsed = ParseText(text.view(), path, options, &text);
  // The inflater's own error (corrupt gzip, the cap, Ctrl-C) explains a parse that failed on
  // the zeros past it, so it comes first.
  XPUPERF_ASSIGN_OR_RETURN(const bool exact, text.Finish());
  if (!exact) return std::optional<Trace>();
  if (!parsed.ok()) return parsed.error();
  return std::optional<Trace>(std::move(parsed).value());
}

Result<Trace> ParseTrace(std::string_view json, std::string source, const ParseOptions& options) {
  return ParseText(json, std::move(source), options, nullptr);
}

Result<Trace> ParseTrace(std::string_view json, std::string source, size_t chunk_bytes,
                         bool release_consumed) {
  ParseOptions options;
  options.chunk_bytes = chunk_bytes;
  options.release_consumed = release_consumed;
  return ParseTrace(json, std::move(source), options);
}

Result<Trace> ReadTraceFile(const std::string& path) {
  if (IsXPlaneFileName(path)) return ReadXSpaceFile(path);
  XPUPERF_ASSIGN_OR_RETURN(std::optional<Trace> streamed, internal::ReadStreamedGzip(path));
  if (streamed) return std::move(*streamed);
  XPUPERF_ASSIGN_OR_RETURN(TraceText text, TraceText::Load(path));
  ParseOptions options;
  options.release_consumed = true;
  options.writable_text = true;  // a private mapping or an owned string
  options.writable_padding = text.padding();
  return ParseTrace(text.view(), path, options);
}

}  // namespace xpuperf::trace

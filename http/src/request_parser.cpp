#include "xpuperf/http/request_parser.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace xpuperf::http {

namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// RFC 9110 token characters.
bool IsTokenChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (std::isalnum(u)) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), IsTokenChar);
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Comma-separated list contains `item` (case-insensitive).
bool ListContains(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    if (EqualsIgnoringCase(Trim(list.substr(0, comma)), item)) return true;
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return false;
}

// A decimal Content-Length; false when not all digits or beyond 18 digits.
bool ParseLength(std::string_view text, size_t& value) {
  if (text.empty() || text.size() > 18) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  return true;
}

constexpr size_t kMaxChunkSizeLine = 1024;  // hex size and extensions

}  // namespace

std::string_view Request::HeaderValue(std::string_view name) const {
  for (const Header& h : headers) {
    if (EqualsIgnoringCase(h.name, name)) return h.value;
  }
  return {};
}

bool Request::HasHeader(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const Header& h) { return EqualsIgnoringCase(h.name, name); });
}

RequestParser::RequestParser(Limits limits) : limits_(std::move(limits)) {}

void RequestParser::Reset() {
  Limits limits = std::move(limits_);
  *this = RequestParser(std::move(limits));
}

void RequestParser::Fail(int status, std::string reason) {
  state_ = State::kError;
  error_status_ = status;
  error_reason_ = std::move(reason);
}

size_t RequestParser::Feed(std::string_view data) {
  size_t used = 0;
  while (used < data.size() && (state_ == State::kHead || state_ == State::kBody)) {
    if (!data.empty()) started_ = true;
    const std::string_view rest = data.substr(used);
    used += state_ == State::kHead ? FeedHead(rest) : FeedBody(rest);
  }
  return used;
}

bool RequestParser::TakeLine(std::string_view data, size_t& used, size_t max_bytes,
                             bool& too_long) {
  const size_t newline = data.find('\n');
  const size_t take = newline == std::string_view::npos ? data.size() : newline + 1;
  if (line_.size() + take > max_bytes) {
    too_long = true;
    return false;
  }
  line_.append(data.substr(0, take));
  used = take;
  if (newline == std::string_view::npos) return false;
  line_.pop_back();  // LF
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

size_t RequestParser::FeedHead(std::string_view data) {
  // Empty lines before the request line are ignored (RFC 9112 2.2); they count as head bytes.
  const size_t room = limits_.max_head_bytes - head_bytes_;
  const size_t line_cap = std::min(limits_.max_line_bytes, line_.size() + room);
  bool too_long = false;
  size_t used = 0;
  const bool whole = TakeLine(data, used, line_cap, too_long);
  head_bytes_ += used;
  if (too_long) {
    if (line_cap < limits_.max_line_bytes) {
      Fail(431, "request head larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
    } else if (!seen_request_line_) {
      Fail(414, "request line longer than " + std::to_string(limits_.max_line_bytes) + " bytes");
    } else {
      Fail(431, "header line longer than " + std::to_string(limits_.max_line_bytes) + " bytes");
    }
    return used;
  }
  if (whole) {
    const std::string line = std::move(line_);
    line_.clear();
    HeadLine(line);
  }
  return used;
}

void RequestParser::HeadLine(std::string_view line) {
  if (!seen_request_line_) {
    if (line.empty()) return;  // a stray CRLF between requests
    RequestLine(line);
    return;
  }
  if (line.empty()) {
    EndOfHead();
    return;
  }
  HeaderLine(line);
}

void RequestParser::RequestLine(std::string_view line) {
  seen_request_line_ = true;
  const size_t first = line.find(' ');
  const size_t last = line.rfind(' ');
  if (first == std::string_view::npos || first == last) {
    Fail(400, "malformed request line");
    return;
  }
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, last - first - 1);
  const std::string_view version = line.substr(last + 1);
  if (!IsToken(method)) {
    Fail(400, "malformed method");
    return;
  }
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      !std::isdigit(static_cast<unsigned char>(version[5])) ||
      !std::isdigit(static_cast<unsigned char>(version[7]))) {
    Fail(400, "malformed HTTP version");
    return;
  }
  if (version[5] != '1') {
    Fail(505, "only HTTP/1.0 and HTTP/1.1 are served");
    return;
  }
  const bool bad_char = std::any_of(target.begin(), target.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
  if (target.empty() || bad_char) {
    Fail(400, "malformed request target");
    return;
  }
  std::string_view path = target;
  if (path.front() != '/') {
    // absolute-form (a proxy's request): http://host/path
    const size_t scheme = path.find("://");
    if (scheme == std::string_view::npos) {
      if (path != "*") {
        Fail(400, "malformed request target");
        return;
      }
    } else {
      const size_t slash = path.find('/', scheme + 3);
      path = slash == std::string_view::npos ? std::string_view("/") : path.substr(slash);
    }
  }
  if (!limits_.methods.empty() &&
      std::find(limits_.methods.begin(), limits_.methods.end(), method) == limits_.methods.end()) {
    Fail(405, "only " + AllowedMethods(limits_));
    return;
  }
  const size_t question = path.find('?');
  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.path = std::string(path.substr(0, question));
  request_.query = question == std::string_view::npos ? "" : std::string(path.substr(question + 1));
  request_.minor_version = version[7] - '0';
}

void RequestParser::HeaderLine(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    Fail(400, "obsolete line folding in a header");
    return;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
    Fail(400, "malformed header line");
    return;
  }
  const std::string_view value = Trim(line.substr(colon + 1));
  const bool control = std::any_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
  if (control) {
    Fail(400, "control character in a header value");
    return;
  }
  if (request_.headers.size() >= limits_.max_header_count) {
    Fail(431, "more than " + std::to_string(limits_.max_header_count) + " headers");
    return;
  }
  request_.headers.push_back({std::string(line.substr(0, colon)), std::string(value)});
}

void RequestParser::EndOfHead() {
  const Request& r = request_;
  const std::string_view connection = r.HeaderValue("Connection");
  request_.keep_alive = r.minor_version >= 1 ? !ListContains(connection, "close")
                                             : ListContains(connection, "keep-alive");
  size_t length = 0;
  bool has_length = false;
  for (const Header& h : r.headers) {
    if (!EqualsIgnoringCase(h.name, "Content-Length")) continue;
    size_t value = 0;
    if (!ParseLength(h.value, value)) {
      Fail(400, "malformed Content-Length");
      return;
    }
    if (has_length && value != length) {
      Fail(400, "two different Content-Length headers");
      return;
    }
    has_length = true;
    length = value;
  }
  const bool has_coding = r.HasHeader("Transfer-Encoding");
  if (has_coding && has_length) {
    Fail(400, "both Transfer-Encoding and Content-Length");
    return;
  }
  if (has_coding && (r.minor_version == 0 ||
                     !EqualsIgnoringCase(Trim(r.HeaderValue("Transfer-Encoding")), "chunked"))) {
    Fail(501, "only the chunked transfer coding is understood");
    return;
  }
  const bool has_body = has_coding || length > 0;
  if (has_body && limits_.max_body_bytes == 0) {
    Fail(413, "this server takes no request body");
    return;
  }
  if (has_body && length > limits_.max_body_bytes) {
    Fail(413, "request body larger than " + std::to_string(limits_.max_body_bytes) + " bytes");
    return;
  }
  const std::string_view encoding = Trim(r.HeaderValue("Content-Encoding"));
  if (has_body && !encoding.empty() && !EqualsIgnoringCase(encoding, "identity")) {
    Fail(415, "compressed request bodies are not accepted");
    return;
  }
  expect_continue_ = EqualsIgnoringCase(Trim(r.HeaderValue("Expect")), "100-continue");
  if (has_coding) {
    body_mode_ = BodyMode::kChunked;
    state_ = State::kBody;
  } else if (length > 0) {
    body_mode_ = BodyMode::kLength;
    body_remaining_ = length;
    request_.body.reserve(length);
    state_ = State::kBody;
  } else {
    state_ = State::kComplete;
  }
}

size_t RequestParser::FeedBody(std::string_view data) {
  if (body_mode_ == BodyMode::kChunked) return FeedChunked(data);
  const size_t take = std::min(body_remaining_, data.size());
  request_.body.append(data.substr(0, take));
  body_remaining_ -= take;
  if (body_remaining_ == 0) state_ = State::kComplete;
  return take;
}

size_t RequestParser::FeedChunked(std::string_view data) {
  size_t used = 0;
  bool too_long = false;
  switch (chunk_state_) {
    case ChunkState::kSize: {
      if (!TakeLine(data, used, kMaxChunkSizeLine, too_long)) {
        if (too_long) Fail(400, "chunk size line too long");
        return used;
      }
      const std::string_view size_text = Trim(std::string_view(line_).substr(0, line_.find(';')));
      size_t size = 0;
      const bool hex = !size_text.empty() && size_text.size() <= 15 &&
                       std::all_of(size_text.begin(), size_text.end(), [](char c) {
                         return std::isxdigit(static_cast<unsigned char>(c));
                       });
      if (!hex) {
        Fail(400, "malformed chunk size");
        return used;
      }
      size = std::stoull(std::string(size_text), nullptr, 16);
      line_.clear();
      if (size > limits_.max_body_bytes - request_.body.size()) {
        Fail(413, "request body larger than " + std::to_string(limits_.max_body_bytes) + " bytes");
        return used;
      }
      body_remaining_ = size;
      chunk_state_ = size == 0 ? ChunkState::kTrailer : ChunkState::kData;
      return used;
    }
    case ChunkState::kData: {
      const size_t take = std::min(body_remaining_, data.size());
      request_.body.append(data.substr(0, take));
      body_remaining_ -= take;
      if (body_remaining_ == 0) chunk_state_ = ChunkState::kDataEnd;
      return take;
    }
    case ChunkState::kDataEnd: {
      if (!TakeLine(data, used, 2, too_long)) {
        if (too_long || (!line_.empty() && line_ != "\r")) {
          Fail(400, "chunk data not followed by CRLF");
        }
        return used;
      }
      if (!line_.empty()) {
        Fail(400, "chunk data not followed by CRLF");
        return used;
      }
      chunk_state_ = ChunkState::kSize;
      return used;
    }
    case ChunkState::kTrailer: {
      // Trailer fields are read and dropped, within the head's bounds.
      const size_t room = limits_.max_head_bytes - trailer_bytes_;
      const bool whole =
          TakeLine(data, used, std::min(limits_.max_line_bytes, line_.size() + room), too_long);
      trailer_bytes_ += used;
      if (too_long) {
        Fail(431, "trailer larger than " + std::to_string(limits_.max_head_bytes) +
                      " bytes or a trailer line longer than " +
                      std::to_string(limits_.max_line_bytes));
        return used;
      }
      if (!whole) return used;
      const bool end = line_.empty();
      line_.clear();
      if (end) state_ = State::kComplete;
      return used;
    }
  }
  return used;
}

std::string AllowedMethods(const Limits& limits) {
  std::string text;
  for (const std::string& method : limits.methods) text += (text.empty() ? "" : ", ") + method;
  return text;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Status";
  }
}

}  // namespace xpuperf::http

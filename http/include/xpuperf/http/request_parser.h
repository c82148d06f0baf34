// An incremental HTTP/1.1 request parser with hard bounds (RFC 9112). Bytes go in as they arrive;
// nothing beyond the limits is ever buffered: a request line or header line longer than
// `max_line_bytes`, a head longer than `max_head_bytes`, more than `max_header_count` headers or a
// body longer than `max_body_bytes` ends the parse at once with the status to answer (414, 431,
// 413). Bodies are framed by Content-Length or chunked transfer coding (decoded, counted as they
// arrive); both at once, a second differing length, an unknown transfer coding or a compressed
// body are refused. Pure and thread-compatible: fuzzed by fuzz/http_request_fuzzer.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace xpuperf::http {

struct Limits {
  size_t max_line_bytes = size_t{8} * 1024;  // the request line and each header line, CRLF included
  size_t max_head_bytes = size_t{64} * 1024;  // request line and headers together
  size_t max_header_count = 100;
  size_t max_body_bytes = 0;  // 0: this server takes no request body (413 for any)
  // The methods this server answers; another is refused (405) before any body is read. Empty:
  // every method reaches the handler.
  std::vector<std::string> methods;
};

struct Header {
  std::string name;   // as sent
  std::string value;  // without surrounding blanks
};

struct Request {
  std::string method;     // "GET"
  std::string target;     // as sent: "/metrics?x=1"
  std::string path;       // "/metrics"
  std::string query;      // "x=1"
  int minor_version = 1;  // HTTP/1.minor
  std::vector<Header> headers;
  std::string body;
  std::string remote_ip;   // set by the server
  bool keep_alive = true;  // what the client asked for (Connection, version)

  // The first value of a header (name compared case-insensitively); empty when absent.
  std::string_view HeaderValue(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
};

class RequestParser {
 public:
  enum class State { kHead, kBody, kComplete, kError };

  explicit RequestParser(Limits limits = {});

  // Consumes bytes of `data` and returns how many it used: all of them until the request is
  // complete or refused; after kComplete the rest belongs to the next request (pipelining).
  size_t Feed(std::string_view data);

  State state() const { return state_; }
  bool complete() const { return state_ == State::kComplete; }
  bool failed() const { return state_ == State::kError; }
  // Whether any byte of the current request has arrived (an idle keep-alive connection has none).
  bool started() const { return started_; }
  // The head is complete and asked for `Expect: 100-continue` before its body.
  bool expects_continue() const { return state_ == State::kBody && expect_continue_; }
  // When failed(): the status to answer (400, 413, 414, 415, 431, 501, 505) and why.
  int error_status() const { return error_status_; }
  const std::string& error_reason() const { return error_reason_; }

  Request& request() { return request_; }
  // Ready for the next request on the same connection.
  void Reset();

 private:
  enum class BodyMode { kNone, kLength, kChunked };
  enum class ChunkState { kSize, kData, kDataEnd, kTrailer };

  size_t FeedHead(std::string_view data);
  size_t FeedBody(std::string_view data);
  size_t FeedChunked(std::string_view data);
  // Appends to the current line; true when `line_` holds a whole line (without its LF).
  bool TakeLine(std::string_view data, size_t& used, size_t max_bytes, bool& too_long);
  void HeadLine(std::string_view line);
  void RequestLine(std::string_view line);
  void HeaderLine(std::string_view line);
  void EndOfHead();
  void Fail(int status, std::string reason);

  Limits limits_;
  State state_ = State::kHead;
  bool started_ = false;
  bool expect_continue_ = false;
  int error_status_ = 0;
  std::string error_reason_;
  Request request_;
  std::string line_;
  size_t head_bytes_ = 0;
  bool seen_request_line_ = false;
  BodyMode body_mode_ = BodyMode::kNone;
  size_t body_remaining_ = 0;
  ChunkState chunk_state_ = ChunkState::kSize;
  size_t trailer_bytes_ = 0;
};

// "GET, HEAD": the Allow header of a 405.
std::string AllowedMethods(const Limits& limits);

// The reason phrase of a status code ("Not Found").
std::string_view ReasonPhrase(int status);

}  // namespace xpuperf::http

// The HTTP request parser (http/request_parser.h) on arbitrary bytes: the first byte picks the
// body limit and the size of the pieces the rest arrives in. Invariants: nothing is consumed past
// the input, nothing is kept past the limits, and the outcome does not depend on how the bytes
// were split (the same request, or the same refusal, whole or in pieces).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "xpuperf/http/request_parser.h"

namespace {

struct Outcome {
  xpuperf::http::RequestParser::State state;
  int status = 0;
  size_t used = 0;
  std::string method, target, body;
  size_t headers = 0;
};

Outcome Parse(std::string_view input, size_t piece, const xpuperf::http::Limits& limits) {
  xpuperf::http::RequestParser parser(limits);
  Outcome outcome;
  while (outcome.used < input.size() && !parser.complete() && !parser.failed()) {
    const std::string_view part = input.substr(outcome.used, piece);
    const size_t used = parser.Feed(part);
    if (used > part.size()) std::abort();
    outcome.used += used;
    if (used < part.size() && !parser.complete() && !parser.failed()) std::abort();
  }
  outcome.state = parser.state();
  outcome.status = parser.error_status();
  outcome.method = parser.request().method;
  outcome.target = parser.request().target;
  outcome.body = parser.request().body;
  outcome.headers = parser.request().headers.size();
  if (outcome.body.size() > limits.max_body_bytes) std::abort();
  if (outcome.headers > limits.max_header_count) std::abort();
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  xpuperf::http::Limits limits;
  limits.max_line_bytes = 256;
  limits.max_head_bytes = 1024;
  limits.max_header_count = 8;
  limits.max_body_bytes = (data[0] & 0x0f) * 64;
  if (data[0] & 0x80) limits.methods = {"GET", "HEAD", "POST"};
  const size_t piece = 1 + ((data[0] >> 4) & 0x07);
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  const Outcome whole = Parse(input, input.size() + 1, limits);
  const Outcome pieces = Parse(input, piece, limits);
  if (whole.state != pieces.state || whole.status != pieces.status) std::abort();
  if (whole.state == xpuperf::http::RequestParser::State::kComplete &&
      (whole.used != pieces.used || whole.method != pieces.method ||
       whole.target != pieces.target || whole.body != pieces.body ||
       whole.headers != pieces.headers)) {
    std::abort();
  }
  return 0;
}

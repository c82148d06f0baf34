// The parser's bounds and framing rules, fed whole, byte by byte and in floods.
#include "xpuperf/http/request_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace xpuperf::http {
namespace {

Limits WithBody(size_t bytes) {
  Limits limits;
  limits.max_body_bytes = bytes;
  return limits;
}

TEST(RequestParserTest, ParsesAGetWholeAndByteByByte) {
  const std::string text =
      "GET /metrics?name=a HTTP/1.1\r\nHost: x\r\nAccept-Encoding:  gzip \r\n\r\n";
  RequestParser whole;
  EXPECT_EQ(whole.Feed(text), text.size());
  ASSERT_TRUE(whole.complete());
  EXPECT_EQ(whole.request().method, "GET");
  EXPECT_EQ(whole.request().path, "/metrics");
  EXPECT_EQ(whole.request().query, "name=a");
  EXPECT_EQ(whole.request().HeaderValue("accept-encoding"), "gzip");
  EXPECT_TRUE(whole.request().keep_alive);

  RequestParser bytes;
  for (char c : text) {
    ASSERT_FALSE(bytes.complete());
    EXPECT_EQ(bytes.Feed(std::string_view(&c, 1)), 1u);
  }
  ASSERT_TRUE(bytes.complete());
  EXPECT_EQ(bytes.request().target, "/metrics?name=a");
}

TEST(RequestParserTest, StopsAtTheEndOfARequestSoPipelinedOnesFollow) {
  const std::string first = "GET /a HTTP/1.1\r\n\r\n";
  const std::string second = "GET /b HTTP/1.1\r\nConnection: close\r\n\r\n";
  RequestParser parser;
  const size_t used = parser.Feed(first + second);
  EXPECT_EQ(used, first.size());
  ASSERT_TRUE(parser.complete());
  EXPECT_EQ(parser.request().path, "/a");
  parser.Reset();
  EXPECT_FALSE(parser.started());
  EXPECT_EQ(parser.Feed(second), second.size());
  ASSERT_TRUE(parser.complete());
  EXPECT_EQ(parser.request().path, "/b");
  EXPECT_FALSE(parser.request().keep_alive);
}

TEST(RequestParserTest, AHugeLineIsRefusedAfterAtMostTheLineLimit) {
  // A 200 MB header line fed in 1 MiB pieces: refused within the first piece, having kept no
  // more than the line limit.
  RequestParser parser;
  parser.Feed("GET / HTTP/1.1\r\nX-Long: ");
  const std::string piece(1 << 20, 'a');
  size_t used = 0;
  for (int i = 0; i < 200 && !parser.failed(); ++i) used += parser.Feed(piece);
  ASSERT_TRUE(parser.failed());
  EXPECT_EQ(parser.error_status(), 431);
  EXPECT_LE(used, Limits{}.max_line_bytes);

  RequestParser line;
  line.Feed("GET /" + std::string(9000, 'a'));
  ASSERT_TRUE(line.failed());
  EXPECT_EQ(line.error_status(), 414);
}

TEST(RequestParserTest, ManyLinesAreBoundedByTheHeadAndCountLimits) {
  RequestParser big;
  big.Feed("GET / HTTP/1.1\r\n");
  const std::string line = "X-Filler: " + std::string(8000, 'b') + "\r\n";
  for (int i = 0; i < 20 && !big.failed(); ++i) big.Feed(line);
  ASSERT_TRUE(big.failed());
  EXPECT_EQ(big.error_status(), 431);
  EXPECT_NE(big.error_reason().find("head"), std::string::npos) << big.error_reason();

  RequestParser many;
  many.Feed("GET / HTTP/1.1\r\n");
  for (int i = 0; i < 101 && !many.failed(); ++i) many.Feed("X-A: 1\r\n");
  ASSERT_TRUE(many.failed());
  EXPECT_EQ(many.error_status(), 431);
}

TEST(RequestParserTest, ABodyWhereNoneIsTakenIs413) {
  RequestParser get;
  get.Feed("GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
  ASSERT_TRUE(get.failed());
  EXPECT_EQ(get.error_status(), 413);
  RequestParser chunked;
  chunked.Feed("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(chunked.error_status(), 413);
  RequestParser zero;
  zero.Feed("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  EXPECT_TRUE(zero.complete());
}

TEST(RequestParserTest, AMethodTheServerDoesNotAnswerIs405BeforeItsBody) {
  Limits limits;
  limits.methods = {"GET", "HEAD"};
  RequestParser post(limits);
  EXPECT_LT(post.Feed("POST /metrics HTTP/1.1\r\nContent-Length: 9\r\n\r\n"), 40u);
  ASSERT_TRUE(post.failed());
  EXPECT_EQ(post.error_status(), 405);
  EXPECT_EQ(AllowedMethods(limits), "GET, HEAD");
}

TEST(RequestParserTest, BodiesAreFramedCountedAndChecked) {
  RequestParser length(WithBody(100));
  const std::string text = "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET";
  EXPECT_EQ(length.Feed(text), text.size() - 3);
  ASSERT_TRUE(length.complete());
  EXPECT_EQ(length.request().body, "hello");

  RequestParser chunked(WithBody(100));
  chunked.Feed(
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n"
      "0\r\nX-Trailer: t\r\n\r\n");
  ASSERT_TRUE(chunked.complete()) << chunked.error_reason();
  EXPECT_EQ(chunked.request().body, "hello world");

  RequestParser too_long(WithBody(100));
  too_long.Feed("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n");
  EXPECT_EQ(too_long.error_status(), 413);

  // Chunks add up past the limit: refused at the chunk that crosses it, before its data.
  RequestParser too_many(WithBody(100));
  too_many.Feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  for (int i = 0; i < 20 && !too_many.failed(); ++i) too_many.Feed("a\r\n0123456789\r\n");
  EXPECT_EQ(too_many.error_status(), 413);
  EXPECT_LE(too_many.request().body.size(), 100u);
}

TEST(RequestParserTest, AmbiguousOrUnreadableFramingIsRefused) {
  struct Case {
    std::string text;
    int status;
  };
  const Case cases[] = {
      {"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"POST / HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\n", 415},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX", 400},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
      {"GET / HTTX/1.1\r\n\r\n", 400},
      {"GET /\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET /a\x01 HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nNo colon\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX: a\x1b]0;title\x07\r\n\r\n", 400},
      {"GET relative HTTP/1.1\r\n\r\n", 400},
  };
  for (const Case& c : cases) {
    RequestParser parser(WithBody(100));
    parser.Feed(c.text);
    EXPECT_TRUE(parser.failed()) << c.text;
    EXPECT_EQ(parser.error_status(), c.status) << c.text << ": " << parser.error_reason();
  }
}

TEST(RequestParserTest, VersionsTargetsAndExpectations) {
  RequestParser old;
  old.Feed("GET / HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(old.complete());
  EXPECT_FALSE(old.request().keep_alive);

  RequestParser proxy;
  proxy.Feed("GET http://host:9/metrics?x HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(proxy.complete());
  EXPECT_EQ(proxy.request().path, "/metrics");

  RequestParser expect(WithBody(10));
  expect.Feed("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  EXPECT_TRUE(expect.expects_continue());
  expect.Feed("ok");
  EXPECT_TRUE(expect.complete());
  EXPECT_FALSE(expect.expects_continue());

  RequestParser stray;
  EXPECT_EQ(stray.Feed("\r\n\r\nGET / HTTP/1.1\r\n\r\n"), 22u);
  EXPECT_TRUE(stray.complete());
}

}  // namespace
}  // namespace xpuperf::http

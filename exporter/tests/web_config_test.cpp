#include "xpuperf/exporter/web_config.h"

#include <gtest/gtest.h>

#include "xpuperf/exporter/basic_auth.h"

namespace xpuperf::exporter {
namespace {

// bcrypt ($2y$, cost 4: fast for tests) of "secret".
constexpr const char* kHash = "$2y$04$OHCK2M/UolQBtYoDw9qA8uektLUmtQnRDvdkm14qyEMBmewt4313q";

TEST(WebConfigTest, EmptyFileMeansPlainHttp) {
  auto c = ParseWebConfig("", "test");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->tls);
  EXPECT_TRUE(c->basic_auth_users.empty());
}

TEST(WebConfigTest, UsersAndHeaders) {
  auto c = ParseWebConfig(std::string("basic_auth_users:\n  prometheus: ") + kHash +
                              "\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n",
                          "test");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->basic_auth_users.at("prometheus"), kHash);
  EXPECT_EQ(c->headers.at("X-Frame-Options"), "deny");
}

TEST(WebConfigTest, MistakesAreClearErrors) {
  auto error = [](const std::string& text) {
    auto c = ParseWebConfig(text, "'w.yml'");
    EXPECT_FALSE(c.ok()) << text;
    return c.ok() ? std::string() : c.error().message;
  };
  EXPECT_NE(error("tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /x.key\n")
                .find("cannot be read"),
            std::string::npos);
  EXPECT_NE(error("tls_server_config:\n  cert_file: a\n").find("both cert_file and key_file"),
            std::string::npos);
  EXPECT_NE(error("basic_auth_users:\n  u: plaintext\n").find("not a bcrypt hash"),
            std::string::npos);
  EXPECT_NE(error("tls_config:\n  a: b\n").find("unknown key 'tls_config'"), std::string::npos);
  EXPECT_NE(error("rate_limit:\n  interval: 1s\n").find("not supported"), std::string::npos);
  EXPECT_NE(error("tls_server_config:\n  cert: PEM\n").find("not supported"), std::string::npos);
  EXPECT_NE(error("[1, 2").find("not valid YAML"), std::string::npos);
  EXPECT_NE(error("http_server_config:\n  headers:\n    Set-Cookie: x\n").find("may not be set"),
            std::string::npos);
  EXPECT_NE(error("- a\n").find("mapping"), std::string::npos);
  EXPECT_EQ(error("basic_auth_users: [a]\n").find("web config 'w.yml'"), 0u);
}

TEST(WebConfigTest, MissingFile) {
  auto c = LoadWebConfig("/nonexistent/web-config.yml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("cannot be read"), std::string::npos);
}

TEST(BasicAuthTest, ChecksBcryptAndCachesSuccess) {
  BasicAuth auth(std::map<std::string, std::string>{{"u", kHash}});
  EXPECT_TRUE(auth.enabled());
  EXPECT_TRUE(auth.Check("Basic dTpzZWNyZXQ="));   // u:secret
  EXPECT_TRUE(auth.Check("Basic dTpzZWNyZXQ="));   // cached
  EXPECT_FALSE(auth.Check("Basic dTp3cm9uZw=="));  // u:wrong
  EXPECT_FALSE(auth.Check("Basic djpzZWNyZXQ="));  // v:secret (unknown user)
  EXPECT_FALSE(auth.Check("Bearer dTpzZWNyZXQ="));
  EXPECT_FALSE(auth.Check("Basic !!!"));
  EXPECT_FALSE(auth.Check(""));
  EXPECT_FALSE(BasicAuth(std::map<std::string, std::string>{}).enabled());
}

TEST(BasicAuthTest, Base64) {
  std::string out;
  ASSERT_TRUE(DecodeBase64("dTpzZWNyZXQ=", out));
  EXPECT_EQ(out, "u:secret");
  ASSERT_TRUE(DecodeBase64("YQ", out));
  EXPECT_EQ(out, "a");
  EXPECT_FALSE(DecodeBase64("a b", out));
  // Nothing after the padding, at most two '=', and a padded text is whole quads.
  EXPECT_FALSE(DecodeBase64("dTpzZWNyZXQ=junk", out));
  EXPECT_FALSE(DecodeBase64("dTpzZWNyZXQ=x", out));
  EXPECT_FALSE(DecodeBase64("YQ===", out));
  EXPECT_FALSE(DecodeBase64("YQ=", out));
  EXPECT_TRUE(DecodeBase64("YQ==", out));
}

// Second hostile-input round: the scheme is case-insensitive (RFC 7617), a password with a NUL
// and bytes after it is not the password before the NUL, junk after base64 padding is refused.
TEST(BasicAuthTest, SchemeCaseNulAndTrailingJunk) {
  BasicAuth auth(std::map<std::string, std::string>{{"u", kHash}});
  EXPECT_TRUE(auth.Check("basic dTpzZWNyZXQ="));
  EXPECT_TRUE(auth.Check("BASIC dTpzZWNyZXQ="));
  EXPECT_FALSE(auth.Check("Basic dTpzZWNyZXQAanVuaw=="));  // u:secret\0junk
  EXPECT_FALSE(auth.Check("Basic dTpzZWNyZXQ=junk"));
}

TEST(WebConfigTest, BcryptCostsOutsideTheSaneRangeAndDuplicateUsersAreRefused) {
  auto error = [](const std::string& text) {
    auto c = ParseWebConfig(text, "'w.yml'");
    return c.ok() ? std::string("ok") : c.error().message;
  };
  std::string hash = kHash;
  for (const std::string cost : {"03", "15", "31", "99"}) {
    hash.replace(4, 2, cost);
    EXPECT_NE(error("basic_auth_users:\n  alice: " + hash + "\n")
                  .find("basic_auth_users.alice: bcrypt cost " + std::to_string(std::stoi(cost)) +
                        " is outside 4..14"),
              std::string::npos)
        << cost;
  }
  EXPECT_NE(error(std::string("basic_auth_users:\n  bob: ") + kHash + "\n  bob: " + kHash + "\n")
                .find("bob is given twice"),
            std::string::npos)
      << error(std::string("basic_auth_users:\n  bob: ") + kHash + "\n  bob: " + kHash + "\n");
}

}  // namespace
}  // namespace xpuperf::exporter

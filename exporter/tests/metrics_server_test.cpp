// The HTTP side in-process: formats, gzip, methods, auth and the listen address syntax.
#include "xpuperf/exporter/metrics_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace xpuperf::exporter {
namespace {

class OneGaugeBackend final : public Backend {
 public:
  OneGaugeBackend() {
    Device d;
    d.backend = "one";
    d.id = "one0";
    devices_.push_back(d);
  }
  std::string_view name() const override { return "one"; }
  const std::vector<Device>& devices() const override { return devices_; }
  std::vector<std::string_view> metrics() const override { return {metrics::kMemoryUsed}; }
  std::vector<Reading> Collect(const std::vector<std::string>&) override {
    Reading r;
    r.metric = std::string(metrics::kMemoryUsed);
    r.device = "one0";
    Sample s;
    s.labels.Set("device", "one0");
    s.value = 1024.0;
    r.samples.push_back(s);
    return {r};
  }

 private:
  std::vector<Device> devices_;
};

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Register("one", "test",
                       [](const BackendOptions&) -> Result<std::unique_ptr<Backend>> {
                         return std::unique_ptr<Backend>(std::make_unique<OneGaugeBackend>());
                       });
    ExporterOptions o;
    o.registry = &registry_;
    o.interval_seconds = 0.05;
    auto e = Exporter::Start(o);
    ASSERT_TRUE(e.ok());
    exporter_ = std::move(e).value();
    for (int i = 0; i < 200 && !exporter_->Latest()->Find("xpuperf_memory_used_bytes"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  std::unique_ptr<MetricsServer> Serve(std::string web_config = "") {
    ServerOptions options;
    options.listen = {"127.0.0.1", 0};
    options.web_config_path = std::move(web_config);
    options.snapshot_json = [](const RawSnapshot& raw) {
      return "{\"readings\":" + std::to_string(raw.readings.size()) + "}";
    };
    auto s = MetricsServer::Start(*exporter_, options);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::move(s).value() : nullptr;
  }
  BackendRegistry registry_;
  std::unique_ptr<Exporter> exporter_;
};

TEST_F(MetricsServerTest, ServesBothFormatsAndTheOtherEndpoints) {
  auto server = Serve();
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  auto text = client.Get("/metrics");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->status, 200);
  EXPECT_EQ(text->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(text->body.find("xpuperf_memory_used_bytes{backend=\"one\",device=\"one0\"} 1024\n"),
            std::string::npos);
  auto om = client.Get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0"}});
  ASSERT_TRUE(om);
  EXPECT_TRUE(om->body.ends_with("# EOF\n"));
  EXPECT_EQ(om->get_header_value("Content-Type"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_NE(health->body.find("\"status\": \"ok\""), std::string::npos);
  auto snapshot = client.Get("/api/v1/snapshot");
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->body, "{\"readings\":1}");
  auto post = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  auto missing = client.Get("/etc/passwd");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->get_header_value("X-Content-Type-Options"), "nosniff");
}

TEST_F(MetricsServerTest, BasicAuthFromWebConfigAndReload) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("xpuperf-server-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "web.yml").string();
  { std::ofstream(path) << ""; }
  auto server = Serve(path);
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  EXPECT_EQ(client.Get("/metrics")->status, 200);
  {
    std::ofstream(path) << "basic_auth_users:\n  u: "
                           "$2y$04$OHCK2M/UolQBtYoDw9qA8uektLUmtQnRDvdkm14qyEMBmewt4313q\n";
  }
  ASSERT_TRUE(server->Reload().ok());
  auto denied = client.Get("/metrics");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  EXPECT_EQ(denied->get_header_value("WWW-Authenticate"), "Basic");
  client.set_basic_auth("u", "secret");
  EXPECT_EQ(client.Get("/metrics")->status, 200);
  { std::ofstream(path) << "basic_auth_users: 3\n"; }
  EXPECT_FALSE(server->Reload().ok());
  EXPECT_EQ(client.Get("/metrics")->status, 200);  // the old config stays
  std::filesystem::remove_all(dir);
}

// A stop that comes right after the start, before the listener thread reached its loop (a
// SIGTERM at start-up), was lost and the join waited for ever: each of these must return.
TEST_F(MetricsServerTest, AStopRightAfterTheStartIsNeverLost) {
  for (int i = 0; i < 200; ++i) {
    std::unique_ptr<MetricsServer> server = Serve();
    ASSERT_NE(server, nullptr);
    server->Stop();
  }
}

TEST_F(MetricsServerTest, BadWebConfigFailsAtStart) {
  ServerOptions options;
  options.listen = {"127.0.0.1", 0};
  options.web_config_path = "/nonexistent/web.yml";
  auto s = MetricsServer::Start(*exporter_, options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot be read"), std::string::npos);
}

TEST(ListenAddressTest, Forms) {
  auto a = ParseListenAddress(":10877");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "0.0.0.0");
  EXPECT_EQ(a->port, 10877);
  a = ParseListenAddress("127.0.0.1:9");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  a = ParseListenAddress("[::1]:80");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "::1");
  a = ParseListenAddress("8080");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_FALSE(ParseListenAddress("host:99999").ok());
  EXPECT_FALSE(ParseListenAddress("host:").ok());
  EXPECT_FALSE(ParseListenAddress("::1:80").ok());
  EXPECT_FALSE(ParseListenAddress("[::1]80").ok());
}

}  // namespace
}  // namespace xpuperf::exporter

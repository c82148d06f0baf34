// Edge cases of the C ABI, through the exported symbols only (this test links libxpuperf.so):
// truncation, the per-thread last error, retry after BUFFER_TOO_SMALL, concurrent recording and
// option parsing details. Each test records under its own op or device names, since every session
// of the process sees the same in-process recorder.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "xpuperf/xpuperf.h"

namespace {

class Session {
 public:
  explicit Session(const char* options = nullptr) { rc_ = xpuperf_open(options, &session_); }
  ~Session() { xpuperf_close(session_); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rc() const { return rc_; }
  xpuperf_session* get() const { return session_; }

  // Every sample of a metric (device nullptr: all devices); fails the test on an error.
  std::vector<xpuperf_sample> Read(const char* metric, const char* device = nullptr) {
    std::vector<xpuperf_sample> samples(256);
    size_t written = 0;
    const int rc = xpuperf_read_metric(session_, metric, device, samples.data(), samples.size(),
                                       &written, nullptr, nullptr, 0);
    EXPECT_EQ(rc, XPUPERF_OK) << xpuperf_last_error();
    samples.resize(rc == XPUPERF_OK ? written : 0);
    return samples;
  }

 private:
  xpuperf_session* session_ = nullptr;
  int rc_ = XPUPERF_OK;
};

const xpuperf_sample* FindLabels(const std::vector<xpuperf_sample>& samples, const char* device,
                                 const std::string& labels) {
  for (const xpuperf_sample& s : samples) {
    if (std::strcmp(s.device, device) == 0 && labels == s.labels) return &s;
  }
  return nullptr;
}

TEST(CapiTest, EmptyAndSpacedOptionsOpen) {
  for (const char* options : {"", ";;", " ", "root = / ;", "pids=1, 2 ;root=/"}) {
    Session session(options);
    EXPECT_EQ(session.rc(), XPUPERF_OK) << "'" << options << "': " << xpuperf_last_error();
    EXPECT_NE(session.get(), nullptr);
  }
}

TEST(CapiTest, BadOptionsSayWhatIsWrong) {
  xpuperf_session* session = nullptr;
  EXPECT_EQ(xpuperf_open("colour=blue", &session), XPUPERF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(xpuperf_last_error(), "colour"), nullptr) << xpuperf_last_error();
  EXPECT_EQ(xpuperf_open("pids=12x", &session), XPUPERF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(xpuperf_last_error(), "12x"), nullptr) << xpuperf_last_error();
  EXPECT_EQ(xpuperf_open("pids=99999999999", &session), XPUPERF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(session, nullptr);
}

TEST(CapiTest, LastErrorIsPerThread) {
  xpuperf_session* session = nullptr;
  ASSERT_EQ(xpuperf_open("main_thread_key=1", &session), XPUPERF_ERROR_INVALID_ARGUMENT);
  std::string other;
  std::thread([&] {
    xpuperf_session* s = nullptr;
    EXPECT_STREQ(xpuperf_last_error(), "");  // nothing failed on this thread yet
    EXPECT_EQ(xpuperf_open("other_thread_key=1", &s), XPUPERF_ERROR_INVALID_ARGUMENT);
    other = xpuperf_last_error();
  }).join();
  EXPECT_NE(std::strstr(xpuperf_last_error(), "main_thread_key"), nullptr);
  EXPECT_NE(other.find("other_thread_key"), std::string::npos) << other;
}

TEST(CapiTest, SuccessKeepsTheLastError) {
  xpuperf_session* session = nullptr;
  ASSERT_EQ(xpuperf_open("bad", &session), XPUPERF_ERROR_INVALID_ARGUMENT);
  const std::string before = xpuperf_last_error();
  Session ok;
  ASSERT_EQ(ok.rc(), XPUPERF_OK);
  EXPECT_EQ(before, xpuperf_last_error());
}

TEST(CapiTest, LongNamesAreTruncatedAndTerminated) {
  // 40-byte device id into device[32]; 300-byte op name into labels[256].
  const std::string device(40, 'd');
  const std::string op(300, 'o');
  xpuperf_record_op(op.c_str(), 10, device.c_str());
  Session session;
  ASSERT_EQ(session.rc(), XPUPERF_OK);
  const auto samples = session.Read("op_execution_time_seconds", device.c_str());
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(std::string(samples[0].device), device.substr(0, 31));
  EXPECT_EQ(std::string(samples[0].labels), ("op=" + op).substr(0, 255));
}

TEST(CapiTest, TruncationNeverSplitsAUtf8Character) {
  // "op=" + 251 x 'a' leaves 'é' (2 bytes) straddling the last byte of labels[256]: it is dropped
  // whole.
  const std::string op = std::string(251, 'a') + "\xc3\xa9" + "tail";
  xpuperf_record_op(op.c_str(), 10, "utf8dev");
  Session session;
  const auto samples = session.Read("op_execution_time_seconds", "utf8dev");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(std::string(samples[0].labels), "op=" + std::string(251, 'a'));
}

TEST(CapiTest, RetryAfterBufferTooSmallReturnsTheSameSamples) {
  xpuperf_record_op("first", 100, "retrydev");
  xpuperf_record_op("second", 100, "retrydev");
  Session session;
  size_t needed = 0;
  xpuperf_sample one;
  ASSERT_EQ(xpuperf_read_metric(session.get(), "op_execution_time_seconds", "retrydev", &one, 1,
                                &needed, nullptr, nullptr, 0),
            XPUPERF_ERROR_BUFFER_TOO_SMALL);
  ASSERT_EQ(needed, 2u);
  EXPECT_STREQ(one.labels, "op=first");  // what fits is written

  // Recorded after the first call: not in the retry, which returns what the first call read.
  xpuperf_record_op("third", 100, "retrydev");
  auto retry = session.Read("op_execution_time_seconds", "retrydev");
  ASSERT_EQ(retry.size(), 2u);
  EXPECT_STREQ(retry[1].labels, "op=second");
  // The retry consumed the pending read: the next call reads again.
  EXPECT_EQ(session.Read("op_execution_time_seconds", "retrydev").size(), 3u);
}

TEST(CapiTest, ScalarSamplesHaveNoDistributionFields) {
  xpuperf_set_queue_depth(11, "scalardev");
  Session session;
  const auto samples = session.Read("queue_size", "scalardev");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].is_distribution, 0);
  EXPECT_EQ(samples[0].value, 11.0);
  EXPECT_STREQ(samples[0].labels, "source=sdk");
  EXPECT_EQ(samples[0].count, 0u);
  EXPECT_TRUE(std::isnan(samples[0].p50) && std::isnan(samples[0].sum) &&
              std::isnan(samples[0].min));
}

TEST(CapiTest, ConcurrentRecordingThroughTheAbiIsExact) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50'000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < kPerThread; ++i) {
        xpuperf_record_op("concurrent", 1000 + i % 100, "threaddev");
        xpuperf_record_transfer(1u << (i % 20), 500, "threaddev");
        xpuperf_set_queue_depth(i, "threaddev");
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Session session;
  const auto ops = session.Read("op_execution_time_seconds", "threaddev");
  const xpuperf_sample* op = FindLabels(ops, "threaddev", "op=concurrent");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->count, uint64_t{kThreads} * kPerThread);
  uint64_t transfers = 0;
  for (const xpuperf_sample& s : session.Read("transfer_latency_seconds", "threaddev")) {
    transfers += s.count;
  }
  EXPECT_EQ(transfers, uint64_t{kThreads} * kPerThread);
  const auto queue = session.Read("queue_size", "threaddev");
  ASSERT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue[0].value, kPerThread - 1);
}

TEST(CapiTest, NoDeviceReportingAMetricGivesAReason) {
  // energy_joules is never recorded in-process: with no backend open there is no reading at all,
  // and the reason says which backends could not open.
  Session session;
  ASSERT_EQ(session.rc(), XPUPERF_OK);
  size_t count = 0;
  ASSERT_EQ(xpuperf_device_count(session.get(), &count), XPUPERF_OK);
  size_t written = 0;
  xpuperf_reading_state state = XPUPERF_READING_OK;
  char reason[512];
  xpuperf_sample sample;
  ASSERT_EQ(xpuperf_read_metric(session.get(), "energy_joules", nullptr, &sample, 1, &written,
                                &state, reason, sizeof reason),
            XPUPERF_OK);
  if (state != XPUPERF_READING_OK) {
    EXPECT_EQ(written, 0u);
    EXPECT_GT(std::strlen(reason), 0u);
  }
  // A reason that does not fit is cut and terminated.
  char tiny[4] = {'x', 'x', 'x', 'x'};
  ASSERT_EQ(xpuperf_read_metric(session.get(), "energy_joules", nullptr, &sample, 1, &written,
                                &state, tiny, sizeof tiny),
            XPUPERF_OK);
  EXPECT_LE(std::strlen(tiny), 3u);
}

TEST(CapiTest, HandlesAreCheckedNotTrusted) {
  xpuperf_session* session = nullptr;
  ASSERT_EQ(xpuperf_open("root=/nonexistent-root;backends=", &session) == XPUPERF_OK ||
                xpuperf_open(nullptr, &session) == XPUPERF_OK,
            true);
  ASSERT_NE(session, nullptr);
  size_t count = 0;
  EXPECT_EQ(xpuperf_device_count(session, &count), XPUPERF_OK);
  xpuperf_close(session);
  // Used after close, closed twice: errors, never a crash.
  EXPECT_EQ(xpuperf_device_count(session, &count), XPUPERF_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(xpuperf_last_error()).find("closed"), std::string::npos);
  EXPECT_EQ(xpuperf_backend_count(session, &count), XPUPERF_ERROR_INVALID_ARGUMENT);
  size_t written = 0;
  EXPECT_EQ(xpuperf_read_metric(session, "cpu_utilization_percent", nullptr, nullptr, 0, &written,
                                nullptr, nullptr, 0),
            XPUPERF_ERROR_INVALID_ARGUMENT);
  xpuperf_close(session);
  EXPECT_NE(std::string(xpuperf_last_error()).find("closed"), std::string::npos);
  // A new session in the same slot does not revive the old handle.
  xpuperf_session* again = nullptr;
  ASSERT_EQ(xpuperf_open(nullptr, &again), XPUPERF_OK);
  EXPECT_NE(again, session);
  EXPECT_EQ(xpuperf_device_count(session, &count), XPUPERF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(xpuperf_device_count(again, &count), XPUPERF_OK);
  xpuperf_close(again);
  // Made-up handles: a stack address, small integers, all ones.
  int on_stack = 0;
  for (void* garbage :
       {static_cast<void*>(&on_stack), reinterpret_cast<void*>(uintptr_t{1}),
        reinterpret_cast<void*>(uintptr_t{0x15}), reinterpret_cast<void*>(~uintptr_t{0})}) {
    auto* handle = static_cast<xpuperf_session*>(garbage);
    EXPECT_EQ(xpuperf_device_count(handle, &count), XPUPERF_ERROR_INVALID_ARGUMENT);
    xpuperf_device_info info;
    EXPECT_EQ(xpuperf_get_device_info(handle, 0, &info), XPUPERF_ERROR_INVALID_ARGUMENT);
    xpuperf_close(handle);
  }
}

}  // namespace

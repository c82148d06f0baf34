/* The C ABI as a C11 program uses it: open a session, list backends, devices and the catalog,
 * read metrics, record in-process metrics and read them back, and check the error paths. Works
 * whether or not the cpu backend can run on this host: where it can, its readings are checked
 * too. Prints what it sees; exits non-zero with a message on the first broken expectation of each
 * step. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpuperf/xpuperf.h"

static int failures = 0;

#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                      \
      fprintf(stderr, " (last error: %s)\n", xpuperf_last_error());      \
      ++failures;                                                        \
      return;                                                            \
    }                                                                    \
  } while (0)

#define CHECK_RC(call, expected)                                             \
  do {                                                                       \
    int rc_ = (call);                                                        \
    CHECK(rc_ == (expected), "%s returned %d (%s), expected %s", #call, rc_, \
          xpuperf_status_string(rc_), xpuperf_status_string(expected));      \
  } while (0)

/* Set by test_backends: whether the cpu backend opened, so cpu0 readings must have values. */
static int cpu_available = 0;

static void test_status_strings(void) {
  int code;
  for (code = XPUPERF_OK; code <= XPUPERF_ERROR_BUFFER_TOO_SMALL; ++code) {
    const char* s = xpuperf_status_string(code);
    CHECK(s != NULL && s[0] != '\0', "status %d has no name", code);
  }
  CHECK(strcmp(xpuperf_status_string(XPUPERF_ERROR_NOT_FOUND), "not found") == 0, "not found");
  CHECK(strcmp(xpuperf_status_string(12345), "unknown status") == 0, "unknown code");
  CHECK(xpuperf_version()[0] != '\0', "empty version");
  printf("xpuperf %s\n", xpuperf_version());
}

static void test_backends(xpuperf_session* session) {
  size_t count = 0, i;
  CHECK_RC(xpuperf_backend_count(session, &count), XPUPERF_OK);
  CHECK(count >= 1, "no backend compiled in (the cpu backend is always built)");
  for (i = 0; i < count; ++i) {
    xpuperf_backend_info info;
    CHECK_RC(xpuperf_get_backend_info(session, i, &info), XPUPERF_OK);
    CHECK(info.name[0] != '\0', "backend %zu has no name", i);
    CHECK(info.available || info.reason[0] != '\0', "backend %s unavailable without a reason",
          info.name);
    printf("backend %-8s %s%s\n", info.name,
           info.available ? "available" : "unavailable: ", info.reason);
    if (strcmp(info.name, "cpu") == 0) cpu_available = info.available;
  }
  {
    xpuperf_backend_info info;
    CHECK_RC(xpuperf_get_backend_info(session, count, &info), XPUPERF_ERROR_INVALID_ARGUMENT);
  }
}

static void test_devices(xpuperf_session* session) {
  size_t count = 0, i;
  int saw_cpu0 = 0;
  CHECK_RC(xpuperf_device_count(session, &count), XPUPERF_OK);
  for (i = 0; i < count; ++i) {
    xpuperf_device_info d;
    CHECK_RC(xpuperf_get_device_info(session, i, &d), XPUPERF_OK);
    CHECK(d.id[0] != '\0' && d.backend[0] != '\0', "device %zu has no id or backend", i);
    CHECK(memchr(d.model, '\0', sizeof d.model) != NULL, "model not NUL-terminated");
    printf("device %-8s backend=%s vendor=%s model=%s memory_bytes=%" PRIu64
           " packages=%d cores=%d threads=%d\n",
           d.id, d.backend, d.vendor, d.model, d.memory_bytes, (int)d.packages, (int)d.cores,
           (int)d.threads);
    if (strcmp(d.id, "cpu0") == 0) saw_cpu0 = 1;
  }
  CHECK(saw_cpu0 == cpu_available, "cpu backend available=%d but device cpu0 listed=%d",
        cpu_available, saw_cpu0);
  {
    xpuperf_device_info d;
    CHECK_RC(xpuperf_get_device_info(session, count, &d), XPUPERF_ERROR_INVALID_ARGUMENT);
  }
}

static void test_catalog(void) {
  size_t count = xpuperf_metric_count(), i;
  int saw_memory_total = 0;
  xpuperf_metric_info m;
  CHECK(count > 0, "empty catalog");
  for (i = 0; i < count; ++i) {
    CHECK_RC(xpuperf_get_metric_info(i, &m), XPUPERF_OK);
    CHECK(m.name && m.unit && m.description && m.labels, "metric %zu has a NULL field", i);
    CHECK(m.kind >= XPUPERF_METRIC_GAUGE && m.kind <= XPUPERF_METRIC_DISTRIBUTION, "kind %d",
          m.kind);
    printf("metric %-40s %-16s %d %s\n", m.name, m.unit, m.kind, m.description);
    if (strcmp(m.name, "memory_total_bytes") == 0) {
      saw_memory_total = 1;
      CHECK(strcmp(m.unit, "bytes") == 0 && m.kind == XPUPERF_METRIC_GAUGE, "memory_total_bytes");
    }
    if (strcmp(m.name, "op_execution_time_seconds") == 0) {
      CHECK(m.kind == XPUPERF_METRIC_DISTRIBUTION, "op_execution_time_seconds kind %d", m.kind);
    }
  }
  CHECK(saw_memory_total, "memory_total_bytes is not in the catalog");
  CHECK_RC(xpuperf_get_metric_info(count, &m), XPUPERF_ERROR_INVALID_ARGUMENT);
}

static void test_memory_total(xpuperf_session* session) {
  xpuperf_sample samples[16];
  size_t written = 99, i;
  xpuperf_reading_state state;
  char reason[256];
  CHECK_RC(xpuperf_read_metric(session, "memory_total_bytes", NULL, samples, 16, &written, &state,
                               reason, sizeof reason),
           XPUPERF_OK);
  printf("memory_total_bytes: state=%d samples=%zu reason='%s'\n", (int)state, written, reason);
  if (!cpu_available) {
    CHECK(state != XPUPERF_READING_OK || written > 0, "ok without samples");
    CHECK(state == XPUPERF_READING_OK || reason[0] != '\0', "no samples and no reason");
    return;
  }
  CHECK(state == XPUPERF_READING_OK, "state %d: %s", (int)state, reason);
  CHECK(written >= 1, "no sample");
  for (i = 0; i < written; ++i) {
    printf("  device=%s labels='%s' value=%.0f\n", samples[i].device, samples[i].labels,
           samples[i].value);
    CHECK(!samples[i].is_distribution, "a gauge read as a distribution");
    CHECK(samples[i].value > 0, "memory_total_bytes %f on %s", samples[i].value, samples[i].device);
    CHECK(samples[i].timestamp_ns > 0, "no timestamp");
  }
  CHECK(strcmp(samples[0].device, "cpu0") == 0, "first device %s", samples[0].device);
}

static void test_unknown_names(xpuperf_session* session) {
  xpuperf_sample sample;
  size_t written = 5;
  CHECK_RC(
      xpuperf_read_metric(session, "no_such_metric", NULL, &sample, 1, &written, NULL, NULL, 0),
      XPUPERF_ERROR_NOT_FOUND);
  CHECK(written == 0, "written %zu after an error", written);
  CHECK(strstr(xpuperf_last_error(), "no_such_metric") != NULL, "message does not name the metric");
  CHECK_RC(xpuperf_read_metric(session, "memory_total_bytes", "nodev9", &sample, 1, &written, NULL,
                               NULL, 0),
           XPUPERF_ERROR_NOT_FOUND);
  CHECK(strstr(xpuperf_last_error(), "nodev9") != NULL, "message does not name the device");
  CHECK_RC(
      xpuperf_read_metric(NULL, "memory_total_bytes", NULL, &sample, 1, &written, NULL, NULL, 0),
      XPUPERF_ERROR_INVALID_ARGUMENT);
  CHECK_RC(xpuperf_read_metric(session, NULL, NULL, &sample, 1, &written, NULL, NULL, 0),
           XPUPERF_ERROR_INVALID_ARGUMENT);
  CHECK_RC(
      xpuperf_read_metric(session, "memory_total_bytes", NULL, NULL, 1, &written, NULL, NULL, 0),
      XPUPERF_ERROR_INVALID_ARGUMENT);
}

/* The sample with the given labels, or NULL. */
static const xpuperf_sample* find_sample(const xpuperf_sample* samples, size_t n,
                                         const char* device, const char* labels_part) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (strcmp(samples[i].device, device) == 0 && strstr(samples[i].labels, labels_part) != NULL) {
      return &samples[i];
    }
  }
  return NULL;
}

static void test_recorded_ops(xpuperf_session* session) {
  enum { kOps = 1000 };
  xpuperf_sample* samples;
  const xpuperf_sample* s;
  size_t needed = 0, written = 0, again = 0;
  xpuperf_reading_state state;
  int i;
  /* 1 us, 2 us, ... 1 ms: p50 is 500 us, the sum 0.5005 s. */
  for (i = 1; i <= kOps; ++i) xpuperf_record_op("capi_test_op", (int64_t)i * 1000, NULL);
  xpuperf_record_op("capi_test_op", -1, NULL); /* ignored */
  xpuperf_record_op(NULL, 5, NULL);            /* ignored */

  /* Capacity 0: nothing written, the number needed comes back. */
  CHECK_RC(xpuperf_read_metric(session, "op_execution_time_seconds", NULL, NULL, 0, &needed, &state,
                               NULL, 0),
           XPUPERF_ERROR_BUFFER_TOO_SMALL);
  CHECK(needed >= 1, "needed %zu", needed);
  CHECK(state == XPUPERF_READING_OK, "state %d", (int)state);
  CHECK(xpuperf_last_error()[0] != '\0', "no message for BUFFER_TOO_SMALL");

  samples = calloc(needed, sizeof *samples);
  CHECK(samples != NULL, "out of memory");
  {
    int rc = xpuperf_read_metric(session, "op_execution_time_seconds", NULL, samples, needed,
                                 &written, &state, NULL, 0);
    if (rc != XPUPERF_OK || written != needed) free(samples);
    CHECK(rc == XPUPERF_OK, "retry returned %s", xpuperf_status_string(rc));
    CHECK(written == needed, "retry wrote %zu, first call needed %zu", written, needed);
  }
  s = find_sample(samples, written, "cpu0", "op=capi_test_op");
  if (s == NULL) free(samples);
  CHECK(s != NULL, "no sample for op=capi_test_op on cpu0 among %zu", written);
  printf("op_execution_time_seconds{op=capi_test_op}: count=%" PRIu64
         " sum=%g min=%g max=%g p50=%g p90=%g p95=%g p999=%g\n",
         s->count, s->sum, s->min, s->max, s->p50, s->p90, s->p95, s->p999);
  {
    const xpuperf_sample copy = *s;
    free(samples);
    CHECK(copy.is_distribution, "not a distribution");
    CHECK(copy.count == kOps, "count %" PRIu64, copy.count);
    CHECK(fabs(copy.sum - 0.5005) < 1e-9, "sum %.12f", copy.sum);
    CHECK(fabs(copy.min - 1e-6) < 1e-15 && fabs(copy.max - 1e-3) < 1e-12, "min %g max %g", copy.min,
          copy.max);
    CHECK(copy.p50 > 0.5e-3 * 0.875 && copy.p50 < 0.5e-3 * 1.125, "p50 %g, expected ~5e-4",
          copy.p50);
    CHECK(copy.p90 > copy.p50 && copy.p999 <= copy.max, "p90 %g p999 %g", copy.p90, copy.p999);
    CHECK(fabs(copy.value - 0.5005 / kOps) < 1e-12, "mean %g", copy.value);
  }

  /* A device filter finds the recorded device even where no backend lists it. */
  {
    xpuperf_sample one[64];
    CHECK_RC(xpuperf_read_metric(session, "op_execution_time_seconds", "cpu0", one, 64, &again,
                                 &state, NULL, 0),
             XPUPERF_OK);
    CHECK(find_sample(one, again, "cpu0", "op=capi_test_op") != NULL, "cpu0 filter lost the op");
  }
}

static void test_recorded_transfers_and_queue(xpuperf_session* session) {
  xpuperf_sample samples[64];
  const xpuperf_sample* s;
  size_t written = 0;
  xpuperf_reading_state state;
  int i;
  for (i = 0; i < 10; ++i) xpuperf_record_transfer(3000, 2000 + i, "capi_accel0");
  xpuperf_set_queue_depth(3, NULL);
  xpuperf_set_queue_depth(7, NULL);

  CHECK_RC(xpuperf_read_metric(session, "transfer_latency_seconds", "capi_accel0", samples, 64,
                               &written, &state, NULL, 0),
           XPUPERF_OK);
  s = find_sample(samples, written, "capi_accel0", "buffer_size=4KiB");
  CHECK(s != NULL, "no 4KiB transfer sample among %zu", written);
  CHECK(s->count == 10 && s->min > 1.9e-6 && s->max < 2.1e-6, "count %" PRIu64 " min %g max %g",
        s->count, s->min, s->max);

  CHECK_RC(xpuperf_read_metric(session, "queue_size", NULL, samples, 64, &written, &state, NULL, 0),
           XPUPERF_OK);
  s = find_sample(samples, written, "cpu0", "source=sdk");
  CHECK(s != NULL, "no recorded queue depth among %zu samples", written);
  CHECK(!s->is_distribution && s->value == 7.0, "queue depth %g", s->value);
}

static void test_bad_options(const char* options) {
  static const char* const kBad[] = {
      "nonsense", "root",      "root=",     "pids=abc",         "pids=1,,2",
      "pids=-4",  "unknown=1", "backends=", "root=/;root=/tmp",
  };
  size_t i;
  for (i = 0; i < sizeof kBad / sizeof kBad[0]; ++i) {
    xpuperf_session* s = (xpuperf_session*)&failures; /* must be reset to NULL */
    CHECK_RC(xpuperf_open(kBad[i], &s), XPUPERF_ERROR_INVALID_ARGUMENT);
    CHECK(s == NULL, "session not NULL after a failed open of '%s'", kBad[i]);
    CHECK(xpuperf_last_error()[0] != '\0', "no message for '%s'", kBad[i]);
  }
  {
    xpuperf_session* s = NULL;
    CHECK_RC(xpuperf_open("backends=nosuchbackend", &s), XPUPERF_ERROR_NOT_FOUND);
    CHECK(strstr(xpuperf_last_error(), "nosuchbackend") != NULL, "message does not name it");
    CHECK_RC(xpuperf_open(NULL, NULL), XPUPERF_ERROR_INVALID_ARGUMENT);
  }
  {
    /* An explicit backend opens exactly when it is available implicitly. */
    xpuperf_session* s = NULL;
    char explicit_options[512];
    int rc;
    snprintf(explicit_options, sizeof explicit_options, " backends = cpu ; pids = 1 ; %s",
             options ? options : "");
    rc = xpuperf_open(explicit_options, &s);
    CHECK((rc == XPUPERF_OK) == cpu_available, "backends=cpu gave %s, cpu available=%d",
          xpuperf_status_string(rc), cpu_available);
    CHECK(rc == XPUPERF_OK || s == NULL, "session set on failure");
    xpuperf_close(s);
  }
  xpuperf_close(NULL);
}

/* Reads a whole (small) file into a NUL-terminated heap string; NULL if it cannot. */
static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text;
  long size;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return NULL;
  }
  text = malloc((size_t)size + 1);
  if (text != NULL) {
    text[fread(text, 1, (size_t)size, f)] = '\0';
  }
  fclose(f);
  return text;
}

/* Trace ranges and a counter, then check the written Chrome-trace JSON by its text. `path`
 * differs between the two runs of this program so that they may run at once. */
static void test_trace(const char* path) {
  uint64_t dropped = 99;
  char* text;
  int i;
  xpuperf_trace_begin("not traced"); /* no trace running: ignored */
  xpuperf_trace_end();
  CHECK_RC(xpuperf_trace_start(NULL, 0), XPUPERF_ERROR_INVALID_ARGUMENT);
  CHECK_RC(xpuperf_trace_stop(NULL), XPUPERF_ERROR_INVALID_ARGUMENT);
  CHECK_RC(xpuperf_trace_start(path, 0), XPUPERF_OK);
  CHECK_RC(xpuperf_trace_start(path, 0), XPUPERF_ERROR_INVALID_ARGUMENT);
  for (i = 0; i < 3; ++i) {
    xpuperf_trace_begin("capi outer");
    xpuperf_trace_begin("capi \"inner\"");
    xpuperf_trace_counter("capi_depth", (double)i + 0.5);
    xpuperf_trace_end();
    xpuperf_trace_end();
  }
  xpuperf_trace_end(); /* unmatched: ignored */
  xpuperf_trace_begin(NULL);
  xpuperf_trace_counter(NULL, 1.0);
  CHECK_RC(xpuperf_trace_stop(&dropped), XPUPERF_OK);
  CHECK(dropped == 0, "%" PRIu64 " events dropped", dropped);
  text = read_file(path);
  CHECK(text != NULL, "cannot read %s", path);
  {
    const char* p = text;
    int outer = 0;
    while ((p = strstr(p, "\"name\":\"capi outer\"")) != NULL) {
      ++outer;
      ++p;
    }
    if (strncmp(text, "{\"traceEvents\":[", 16) != 0 || outer != 3 ||
        strstr(text, "\"name\":\"capi \\\"inner\\\"\"") == NULL ||
        strstr(text, "\"args\":{\"value\":2.5}") == NULL || strstr(text, "not traced") != NULL ||
        strstr(text, "\"dropped_events\":0") == NULL) {
      fprintf(stderr, "unexpected trace:\n%s\n", text);
      free(text);
      CHECK(0, "the trace of %s does not hold the recorded events", path);
    }
  }
  free(text);
  remove(path);
}

/* Usage: capi_test [OPTIONS]; OPTIONS go to xpuperf_open (default NULL) and must not set
 * backends. With a root where the cpu backend cannot open, the same checks cover a host without
 * any working backend. */
int main(int argc, char** argv) {
  const char* options = argc > 1 ? argv[1] : NULL;
  xpuperf_session* session = NULL;
  int rc;
  test_status_strings();
  rc = xpuperf_open(options, &session);
  if (rc != XPUPERF_OK) {
    fprintf(stderr, "xpuperf_open(%s) failed: %s: %s\n", options ? options : "NULL",
            xpuperf_status_string(rc), xpuperf_last_error());
    return 1;
  }
  test_backends(session);
  test_devices(session);
  test_catalog();
  test_memory_total(session);
  test_unknown_names(session);
  test_recorded_ops(session);
  test_recorded_transfers_and_queue(session);
  test_bad_options(options);
  test_trace(options == NULL ? "capi_test_trace.json" : "capi_test_trace_with_options.json");
  xpuperf_close(session);
  if (failures > 0) {
    fprintf(stderr, "capi_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("capi_test: all checks passed\n");
  return 0;
}

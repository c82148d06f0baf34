/*
 * xpuperf C ABI: devices, the metric catalog, telemetry readings and in-process recording, for
 * bindings (Python ctypes/cffi, Rust, Go) and C programs. Link with -lxpuperf (libxpuperf.so.0).
 *
 * Conventions
 * - Functions that can fail return an int status (XPUPERF_OK or an XPUPERF_ERROR_* code) and write
 *   results through out-pointers. On failure xpuperf_last_error() says why.
 * - Values are in base units: bytes, seconds, percent, watts, hertz (see xpuperf_metric_info.unit).
 * - Strings written into fixed arrays are truncated to fit and always NUL-terminated.
 * - No C++ exception ever leaves a function of this header.
 *
 * Thread-safety
 * - A session is not thread-safe: use one from one thread at a time. Distinct sessions may be used
 *   from distinct threads.
 * - The catalog functions, xpuperf_status_string, xpuperf_last_error, the recording functions
 *   (xpuperf_record_op, xpuperf_record_transfer, xpuperf_set_queue_depth) and the tracing
 *   functions (xpuperf_trace_*) are thread-safe.
 */
#ifndef XPUPERF_XPUPERF_H_
#define XPUPERF_XPUPERF_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(XPUPERF_BUILDING_LIBRARY)
#define XPUPERF_API __declspec(dllexport)
#else
#define XPUPERF_API __declspec(dllimport)
#endif
#else
#define XPUPERF_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Values are part of the ABI and never change. */
typedef enum xpuperf_status {
  XPUPERF_OK = 0,
  XPUPERF_ERROR_INVALID_ARGUMENT = 1, /* the caller passed something wrong */
  XPUPERF_ERROR_NOT_FOUND = 2,        /* unknown metric, device, backend */
  XPUPERF_ERROR_UNSUPPORTED = 3,      /* this machine cannot provide it */
  XPUPERF_ERROR_UNAVAILABLE = 4,      /* could exist but is not reachable now */
  XPUPERF_ERROR_IO = 5,               /* a read or write failed */
  XPUPERF_ERROR_PARSE = 6,            /* input is malformed */
  XPUPERF_ERROR_INTERNAL = 7,         /* a bug in xpuperf; the message says where */
  XPUPERF_ERROR_BUFFER_TOO_SMALL = 8  /* the caller's array is too short; see xpuperf_read_metric */
} xpuperf_status;

/* A short English name of a status code ("ok", "not found", ...); never NULL, static storage. */
XPUPERF_API const char* xpuperf_status_string(int status);

/* The message of the last call on this thread that returned an error ("" if none yet). Valid until
 * the next failing call on the same thread. */
XPUPERF_API const char* xpuperf_last_error(void);

/* The library version, "MAJOR.MINOR.PATCH"; static storage. */
XPUPERF_API const char* xpuperf_version(void);

/* ---- Sessions ------------------------------------------------------------------------------ */

typedef struct xpuperf_session xpuperf_session;

/* Opens the backends and discovers devices. `options` is NULL, "" or "key=value;key=value" with
 *   root=PATH         prefix of every system path read (default "/"; tests use recorded trees)
 *   backends=cpu,nvidia  backends to open; each must open or the call fails (default: every
 *                     backend that can run here, the others are listed by xpuperf_backend_info)
 *   pids=1,2          processes reported by process_cpu_percent and process_memory_bytes
 * A malformed string, an unknown key or a repeated key gives XPUPERF_ERROR_INVALID_ARGUMENT, an
 * unknown backend XPUPERF_ERROR_NOT_FOUND. The session merges what this process records through
 * xpuperf_record_op and friends. On success *out is a session to pass to xpuperf_close; on failure
 * it is set to NULL. */
XPUPERF_API int xpuperf_open(const char* options, xpuperf_session** out);

/* Closes a session; NULL is ignored. Handles are checked ids, not pointers: closing a handle
 * twice, or passing a closed or made-up handle to any function, never crashes — the function
 * returns XPUPERF_ERROR_INVALID_ARGUMENT (xpuperf_close only sets xpuperf_last_error). A session
 * closed while another thread is inside a call on it is destroyed when that call returns. */
XPUPERF_API void xpuperf_close(xpuperf_session* session);

/* Backends this build knows, available or not, and why not. */
typedef struct xpuperf_backend_info {
  char name[16];    /* "cpu", "nvidia", "tpu" */
  int available;    /* 1 when opened in this session */
  char reason[256]; /* why it is not available; "" when available */
} xpuperf_backend_info;

XPUPERF_API int xpuperf_backend_count(const xpuperf_session* session, size_t* count);
/* index < count, else XPUPERF_ERROR_INVALID_ARGUMENT. */
XPUPERF_API int xpuperf_get_backend_info(const xpuperf_session* session, size_t index,
                                         xpuperf_backend_info* out);

/* ---- Devices ------------------------------------------------------------------------------- */

typedef struct xpuperf_device_info {
  char backend[16]; /* "cpu", "nvidia", "tpu" */
  char id[32];      /* stable on this host: "cpu0", "nvidia0"; what xpuperf_read_metric takes */
  char vendor[64];  /* "GenuineIntel", "AuthenticAMD", "NVIDIA", "Google" */
  char model[128];  /* human model name */
  char uuid[64];    /* "" if none */
  char bus_id[32];  /* PCI bus id, "" if none */
  uint64_t memory_bytes; /* device memory; host RAM for the cpu backend */
  int32_t packages;      /* sockets / chips; 0 when unknown */
  int32_t cores;         /* physical cores; 0 when unknown */
  int32_t threads;       /* hardware threads; 0 when unknown */
} xpuperf_device_info;

XPUPERF_API int xpuperf_device_count(const xpuperf_session* session, size_t* count);
/* index < count, else XPUPERF_ERROR_INVALID_ARGUMENT. */
XPUPERF_API int xpuperf_get_device_info(const xpuperf_session* session, size_t index,
                                        xpuperf_device_info* out);

/* ---- The metric catalog (no session needed) ------------------------------------------------ */

typedef enum xpuperf_metric_kind {
  XPUPERF_METRIC_GAUGE = 0,
  XPUPERF_METRIC_COUNTER = 1,
  XPUPERF_METRIC_DISTRIBUTION = 2
} xpuperf_metric_kind;

typedef struct xpuperf_metric_info {
  const char* name;        /* "memory_total_bytes"; static storage, as are the other strings */
  const char* unit;        /* "bytes", "percent", "seconds", ... */
  int kind;                /* an xpuperf_metric_kind */
  const char* description; /* one sentence */
  const char* labels;      /* label keys the samples may carry: "device,core" */
} xpuperf_metric_info;

/* Number of catalog metrics; the catalog is fixed for the life of the process. */
XPUPERF_API size_t xpuperf_metric_count(void);
/* Catalog entry `index` (display order); index < xpuperf_metric_count(). */
XPUPERF_API int xpuperf_get_metric_info(size_t index, xpuperf_metric_info* out);

/* ---- Readings ------------------------------------------------------------------------------ */

typedef enum xpuperf_reading_state {
  XPUPERF_READING_OK = 0,          /* the samples hold values */
  XPUPERF_READING_UNSUPPORTED = 1, /* this host cannot provide the metric; the reason says why */
  XPUPERF_READING_NO_DATA = 2      /* supported, nothing to report yet (first sample of a rate,
                                      nothing recorded) */
} xpuperf_reading_state;

typedef struct xpuperf_sample {
  char device[32];  /* device id */
  char labels[256]; /* other labels as "key=value,key=value" ("core=0", "op=matmul"); "" if none */
  int64_t timestamp_ns; /* wall clock, ns since the Unix epoch */
  int is_distribution;  /* 1 for distribution metrics */
  double value;         /* gauge or counter value; for a distribution the mean (NaN when empty) */
  /* Distributions only (count 0 and NaN otherwise), in the metric's unit (seconds for times): */
  uint64_t count;
  double sum, min, max;
  double p50, p90, p95, p999; /* interpolated inside histogram buckets; NaN when count is 0 */
} xpuperf_sample;

/* Reads one metric on one device (`device` NULL: every device), into samples[0..capacity).
 * - *written is the number of samples the reading has. When it exceeds capacity, the first
 *   `capacity` samples are written and XPUPERF_ERROR_BUFFER_TOO_SMALL is returned; the next call
 *   for the same metric and device then returns those same samples (it does not read again), so a
 *   caller can retry with a larger array without losing a rate interval.
 * - *state is XPUPERF_READING_OK when at least one device reported samples; otherwise the state of
 *   the first device's reading, with `reason` ("cpu0: no RAPL domain under /sys/class/powercap").
 *   `state` may be NULL; `reason` may be NULL or reason_size 0.
 * - Rate metrics (duty cycle, power, process CPU) are computed by the session over the interval
 *   since the previous read of that metric (the first interval starts at xpuperf_open); a read
 *   too soon after the previous one reports XPUPERF_READING_NO_DATA.
 * - An unknown metric or device gives XPUPERF_ERROR_NOT_FOUND. */
XPUPERF_API int xpuperf_read_metric(xpuperf_session* session, const char* metric,
                                    const char* device, xpuperf_sample* samples, size_t capacity,
                                    size_t* written, xpuperf_reading_state* state, char* reason,
                                    size_t reason_size);

/* ---- In-process recording ------------------------------------------------------------------ */
/* What the calling program measures itself, reported by every session of the process as
 * op_execution_time_seconds (label op), transfer_latency_seconds (label buffer_size, the power of
 * two >= bytes: "4KiB") and queue_size. `device` NULL means "cpu0". Thread-safe and lock-free
 * after the first call of a thread with a given op/device (tens of ns; docs/PERFORMANCE.md).
 * Negative durations, durations over a day (a unit or clock mistake) and a NULL op are
 * ignored. */
XPUPERF_API void xpuperf_record_op(const char* op, int64_t duration_ns, const char* device);
XPUPERF_API void xpuperf_record_transfer(uint64_t bytes, int64_t latency_ns, const char* device);
/* Last value wins. */
XPUPERF_API void xpuperf_set_queue_depth(int64_t depth, const char* device);

/* ---- Tracing ------------------------------------------------------------------------------- */
/* Ranges and counters of the calling program as Chrome-trace JSON that Perfetto and
 * `xpuperf analyze` open (the tracer of the C++ SDK, xpuperf/tracer/tracer.h). Thread-safe.
 * xpuperf_trace_start writes to a temporary ".<name>.tmp-<pid>-<n>" next to `path` until
 * xpuperf_trace_stop renames the complete file to `path` (a device or FIFO is written directly; a
 * directory or dangling link is refused: docs/POLICIES.md). record_ops non-zero also records each
 * range's duration as op_execution_time_seconds on cpu0. INVALID_ARGUMENT when a trace is already
 * running or path is NULL or empty; IO when the file cannot be created. */
XPUPERF_API int xpuperf_trace_start(const char* path, int record_ops);
/* Writes every recorded event and renames the file into place; *dropped_events (may be NULL)
 * receives the number of events dropped because the writer fell behind. INVALID_ARGUMENT when no
 * trace is running; IO when writing fails (no file is left). */
XPUPERF_API int xpuperf_trace_stop(uint64_t* dropped_events);
/* A range on the calling thread: xpuperf_trace_end closes the thread's innermost open
 * xpuperf_trace_begin. The name is copied; NULL is ignored. While no trace runs, both return at
 * once without recording. */
XPUPERF_API void xpuperf_trace_begin(const char* name);
XPUPERF_API void xpuperf_trace_end(void);
/* One sample of a counter track (name copied). Non-finite values and a NULL name are ignored. */
XPUPERF_API void xpuperf_trace_counter(const char* name, double value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XPUPERF_XPUPERF_H_ */

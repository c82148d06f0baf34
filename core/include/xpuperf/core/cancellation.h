// Cancellation on SIGINT/SIGTERM: one process-wide token that long-running loops poll.
//
// Policy (docs/POLICIES.md): the first SIGINT or SIGTERM only sets the token; every long loop
// (benchmark samples, trace parsing, watch/refresh loops) checks it at least every ~100 ms, stops,
// removes its temporary files and returns the error of CheckCancelled(); main exits 128 + signal
// (130 for SIGINT, 143 for SIGTERM). A second signal while the first is being honoured removes
// every registered temporary file and ends the process at once with the same exit code.
//
// Thread-safety: every function may be called from any thread; the handler itself only touches
// lock-free atomics and async-signal-safe calls (unlink, _exit).
#pragma once

#include <string>

#include "xpuperf/core/status.h"

namespace xpuperf {

// Installs the SIGINT/SIGTERM handlers (idempotent). Call once from main before the work starts.
void InstallCancellationHandlers();

// True once SIGINT/SIGTERM arrived (or RequestCancellation was called).
bool CancellationRequested();
// The signal that requested cancellation (SIGINT, SIGTERM), or 0 when none did.
int CancellationSignal();
// Status::Ok() while not cancelled; otherwise kUnavailable "interrupted by SIGINT" (callers tell
// it from other failures by CancellationRequested()).
Status CheckCancelled();
// The process exit code for a cancellation: 128 + signal (130 SIGINT, 143 SIGTERM; 130 if none).
int CancellationExitCode();

// Requests cancellation as if `signal` had arrived (tests, and callers that stop on their own).
void RequestCancellation(int signal);
// Clears the token (tests only: a real process exits after a cancellation).
void ResetCancellationForTesting();

// Sleeps up to `seconds`, waking within ~50 ms of a cancellation. False when cancelled.
bool SleepUnlessCancelled(double seconds);

// Temporary files the second signal must remove before the process dies. Register a path when
// the file is created and unregister it once it was renamed or removed. At most 64 paths of up to
// 4095 bytes are tracked at a time; beyond that Register returns -1 and the file is only removed
// by its owner (on the first signal's orderly path).
int RegisterTemporaryFile(const std::string& path);
void UnregisterTemporaryFile(int slot);

}  // namespace xpuperf

// The parts of the native module xpuperf._xpuperf, one Bind* per area, and how SDK errors become
// Python exceptions. Every Bind* is called once, with the GIL held, from module.cpp.
#pragma once

#include <nanobind/nanobind.h>

#include <utility>

#include "xpuperf/core/status.h"

namespace xpuperf::python {

namespace nb = nanobind;

// Raises the Python exception of an SDK error (GIL held): kInvalidArgument and kParse ValueError,
// kNotFound LookupError, kIo OSError, kUnsupported/kUnavailable/kInternal RuntimeError; the
// message is the SDK's one-line message.
[[noreturn]] void Raise(const Error& error);

inline void Check(const Status& status) {
  if (!status.ok()) Raise(status.error());
}

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) Raise(result.error());
  return std::move(result).value();
}

void BindTelemetry(nb::module_& m);  // Session, devices, readings, the metric catalog
void BindTracer(nb::module_& m);     // ranges, counters, instants, the in-process recorder
void BindTrace(nb::module_& m);      // trace runs, the HTA convention, analyses, event columns
void BindExporter(nb::module_& m);   // the exporter of `xpuperf serve`, in the process

}  // namespace xpuperf::python

// xpuperf._xpuperf: the native half of the Python package (python/xpuperf). The pure-Python
// modules build the public API (xpuperf.devices, xpuperf.scope, xpuperf.hta ...) on it.
#include <Python.h>
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "xpuperf/core/version.h"

namespace xpuperf::python {

void Raise(const Error& error) {
  PyObject* type = PyExc_RuntimeError;
  switch (error.code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kParse:
      type = PyExc_ValueError;
      break;
    case ErrorCode::kNotFound:
      type = PyExc_LookupError;
      break;
    case ErrorCode::kIo:
      type = PyExc_OSError;
      break;
    case ErrorCode::kUnsupported:
    case ErrorCode::kUnavailable:
    case ErrorCode::kInternal:
      break;
  }
  PyErr_SetString(type, error.message.c_str());
  throw nb::python_error();
}

}  // namespace xpuperf::python

NB_MODULE(_xpuperf, m) {
  m.doc() = "Native part of the xpuperf package; use the `xpuperf` module instead.";
  m.attr("__version__") = std::string(xpuperf::kVersion);
  // Range objects live in xpuperf.tracing's caches until the interpreter ends, by design; nanobind
  // would report each as a leak at exit.
  nanobind::set_leak_warnings(false);
  xpuperf::python::BindTelemetry(m);
  xpuperf::python::BindTracer(m);
  xpuperf::python::BindTrace(m);
#ifdef XPUPERF_PYTHON_WITH_EXPORTER
  xpuperf::python::BindExporter(m);
#endif
}

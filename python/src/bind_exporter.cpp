// xpuperf.serve(): the exporter of `xpuperf serve` inside the Python process, with the process's
// own recorder merged in, so an instrumented training loop (xpuperf.record_op, traced scopes)
// publishes its op execution-time and transfer-latency distributions on /metrics.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/recorder.h"
#include "xpuperf/exporter/exporter.h"
#include "xpuperf/exporter/metrics_server.h"

namespace xpuperf::python {
namespace {

// An exporter and its HTTP(S) server; stopped when stopped or destroyed. Its methods are called
// with the Python side's lock held, one at a time.
class PyServer {
 public:
  PyServer(const std::string& listen, double interval_seconds,
           const std::vector<std::string>& backends, const std::string& web_config) {
    exporter::ListenAddress address = Unwrap(exporter::ParseListenAddress(listen));
    exporter::ExporterOptions options;
    options.registry = &BuiltinBackendRegistry();
    options.backends = backends;
    options.interval_seconds = interval_seconds;
    options.recorder = &Recorder::Global();
    Result<std::unique_ptr<exporter::Exporter>> started = [&] {
      nb::gil_scoped_release release;
      return exporter::Exporter::Start(std::move(options));
    }();
    exporter_ = Unwrap(std::move(started));
    exporter::ServerOptions server_options;
    server_options.listen = std::move(address);
    server_options.web_config_path = web_config;
    Result<std::unique_ptr<exporter::MetricsServer>> serving = [&] {
      nb::gil_scoped_release release;
      return exporter::MetricsServer::Start(*exporter_, std::move(server_options));
    }();
    server_ = Unwrap(std::move(serving));
  }
  ~PyServer() { Stop(); }

  int port() const {
    if (server_ == nullptr) Raise(MakeError(ErrorCode::kUnavailable, "the server is stopped"));
    return server_->port();
  }
  bool tls() const { return server_ != nullptr && server_->tls(); }
  bool running() const { return server_ != nullptr; }
  void Stop() {
    nb::gil_scoped_release release;
    server_.reset();  // the server first: it reads the exporter's snapshots
    exporter_.reset();
  }

 private:
  std::unique_ptr<exporter::Exporter> exporter_;
  std::unique_ptr<exporter::MetricsServer> server_;
};

}  // namespace

void BindExporter(nb::module_& m) {
  nb::class_<PyServer>(m, "MetricsServer")
      .def(nb::init<const std::string&, double, const std::vector<std::string>&,
                    const std::string&>(),
           nb::arg("listen"), nb::arg("interval_seconds"), nb::arg("backends"),
           nb::arg("web_config"))
      .def_prop_ro("port", &PyServer::port)
      .def_prop_ro("tls", &PyServer::tls)
      .def_prop_ro("running", &PyServer::running)
      .def("stop", &PyServer::Stop);
}

}  // namespace xpuperf::python

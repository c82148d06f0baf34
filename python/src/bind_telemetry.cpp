// Telemetry: a Session over the built-in backends, its devices and readings as plain Python dicts
// and lists (xpuperf/telemetry.py wraps them in dataclasses). Collect runs without the GIL.
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/recorder.h"
#include "xpuperf/core/session.h"

namespace xpuperf::python {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nb::dict DeviceDict(const Device& d) {
  nb::dict out;
  out["backend"] = d.backend;
  out["id"] = d.id;
  out["index"] = d.index;
  out["vendor"] = d.vendor;
  out["model"] = d.model;
  out["uuid"] = d.uuid;
  out["bus_id"] = d.bus_id;
  out["memory_bytes"] = d.memory_bytes;
  out["packages"] = d.topology.packages;
  out["numa_nodes"] = d.topology.numa_nodes;
  out["cores"] = d.topology.cores;
  out["threads"] = d.topology.threads;
  out["features"] = d.features;
  if (d.is_partition()) {
    nb::dict p;
    p["parent"] = d.partition.parent;
    p["parent_uuid"] = d.partition.parent_uuid;
    p["gpu_instance_id"] = d.partition.gpu_instance_id;
    p["compute_instance_id"] = d.partition.compute_instance_id;
    p["profile"] = d.partition.profile;
    out["partition"] = p;
  }
  return out;
}

nb::dict SampleDict(const Sample& sample) {
  nb::dict out;
  nb::dict labels;
  for (const auto& [key, value] : sample.labels.items()) labels[key.c_str()] = value;
  out["labels"] = labels;
  out["timestamp_ns"] = sample.timestamp_ns;
  if (!sample.is_distribution()) {
    out["value"] = sample.scalar();
    return out;
  }
  const Distribution& d = sample.distribution();
  const auto percentile = [&](double q) { return d.Percentile(q).value_or(kNaN); };
  out["value"] = d.count > 0 ? d.Mean() : kNaN;
  out["count"] = d.count;
  out["sum"] = d.count > 0 ? d.sum : kNaN;
  out["min"] = d.count > 0 ? d.min : kNaN;
  out["max"] = d.count > 0 ? d.max : kNaN;
  out["p50"] = percentile(0.50);
  out["p90"] = percentile(0.90);
  out["p95"] = percentile(0.95);
  out["p99"] = percentile(0.99);
  out["p999"] = percentile(0.999);
  return out;
}

nb::dict ReadingDict(const Reading& r) {
  nb::dict out;
  out["metric"] = r.metric;
  out["device"] = r.device;
  out["state"] = std::string(ReadingStateName(r.state));
  out["reason"] = r.reason;
  out["source"] = r.source;
  nb::list samples;
  for (const Sample& s : r.samples) samples.append(SampleDict(s));
  out["samples"] = samples;
  return out;
}

// One session of the process; not thread-safe (the Python side serialises calls with a lock).
class PySession {
 public:
  PySession(std::vector<std::string> backends, std::string root, std::vector<int> pids) {
    SessionOptions options;
    options.backend.root = std::move(root);
    options.backend.pids = std::move(pids);
    options.backends = std::move(backends);
    // In-process data (xpuperf.record_op, traced scopes) belongs to this process: merge it.
    options.recorder = &Recorder::Global();
    Result<std::unique_ptr<Session>> opened = [&] {
      nb::gil_scoped_release release;
      return Session::Open(BuiltinBackendRegistry(), std::move(options));
    }();
    session_ = Unwrap(std::move(opened));
  }

  nb::list Devices() const {
    nb::list out;
    for (const Device& d : session_->devices()) out.append(DeviceDict(d));
    return out;
  }

  nb::list Backends() const {
    nb::list out;
    for (const BackendStatus& b : session_->backends()) {
      nb::dict row;
      row["name"] = b.name;
      row["available"] = b.available;
      row["reason"] = b.reason;
      out.append(row);
    }
    return out;
  }

  std::vector<std::string> MetricNames() const { return session_->metrics(); }

  nb::list Collect(const std::vector<std::string>& metrics,
                   const std::vector<std::string>& devices) {
    Result<std::vector<Reading>> readings = [&] {
      nb::gil_scoped_release release;
      return session_->Collect(metrics, devices);
    }();
    nb::list out;
    for (const Reading& r : Unwrap(std::move(readings))) out.append(ReadingDict(r));
    return out;
  }

 private:
  std::unique_ptr<Session> session_;
};

nb::list Catalog() {
  nb::list out;
  for (const MetricInfo& info : MetricCatalog()) {
    nb::dict row;
    row["name"] = std::string(info.name);
    row["unit"] = std::string(info.unit);
    row["kind"] = std::string(MetricKindName(info.kind));
    row["description"] = std::string(info.description);
    row["labels"] = std::string(info.labels);
    out.append(row);
  }
  return out;
}

// libtpu's SDK listing (`xpuperf metrics --tpu-sdk --json`) as JSON text; the Python side parses
// it.
std::string TpuSdkJson(const std::string& root) {
  Result<nlohmann::json> doc = [&] {
    nb::gil_scoped_release release;  // the helper may take its whole deadline
    return ReadTpuSdkJson(root);
  }();
  if (!doc.ok()) Raise(doc.error());
  return doc->dump();
}

}  // namespace

void BindTelemetry(nb::module_& m) {
  nb::class_<PySession>(m, "Session", "Backends, devices and readings of this machine.")
      .def(nb::init<std::vector<std::string>, std::string, std::vector<int>>(), nb::arg("backends"),
           nb::arg("root"), nb::arg("pids"))
      .def("devices", &PySession::Devices)
      .def("backends", &PySession::Backends)
      .def("metric_names", &PySession::MetricNames)
      .def("collect", &PySession::Collect, nb::arg("metrics"), nb::arg("devices"));
  m.def("catalog", &Catalog, "The metric catalog: name, unit, kind, description, labels.");
  m.def("tpu_sdk_json", &TpuSdkJson, nb::arg("root"),
        "Every metric libtpu's monitoring SDK lists, as `xpuperf metrics --tpu-sdk --json`.");
}

}  // namespace xpuperf::python

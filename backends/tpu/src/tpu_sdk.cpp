#include "xpuperf/tpu/tpu_sdk.h"

#include "sdk_readings.h"
#include "sdk_source.h"
#include "tpu_chips.h"

namespace xpuperf::tpu {
namespace {

TpuSdkMetric Describe(const std::string& name) {
  TpuSdkMetric out;
  out.name = name;
  if (const SdkMapping* mapping = FindSdkMapping(name)) {
    out.catalog = std::string(mapping->catalog);
    out.note = std::string(mapping->note);
  } else {
    out.note = "not mapped: a metric this xpuperf does not know yet, shown as libtpu gives it";
  }
  return out;
}

}  // namespace

Result<TpuSdkListing> ReadTpuSdk(const TpuSdkOptions& options, const std::string& root) {
  SdkSource source(options);
  auto latest = source.Latest();
  const SdkSnapshot announced = source.Announced();
  TpuSdkListing listing;
  listing.python = announced.python.empty() ? SdkPython(options) : announced.python;
  listing.libtpu_version = announced.libtpu_version;
  if (!latest.ok() && announced.supported.empty()) return latest.error();

  auto chips = DiscoverTpuChips(root);
  const bool has_chip = chips.ok() && !chips->empty();
  SdkView view;
  if (latest.ok()) {
    view.snapshot = std::move(latest).value();
  } else {
    view.reason = latest.error().message;
  }
  for (const std::string& name : announced.supported) {
    TpuSdkMetric metric = Describe(name);
    std::string why;
    bool no_data = false;
    if (const SdkMetric* values = view.Find(name, &why, &no_data)) {
      metric.data = values->data;
      metric.state = "ok";
    } else {
      metric.state = no_data && has_chip ? "no_data" : "unsupported";
      metric.reason = why;
    }
    if (view.snapshot) {
      if (auto d = view.snapshot->descriptions.find(name); d != view.snapshot->descriptions.end()) {
        metric.description = d->second;
      }
    }
    listing.metrics.push_back(std::move(metric));
  }
  return listing;
}

}  // namespace xpuperf::tpu

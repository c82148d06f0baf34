#include "runtime_values.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace xpuperf::tpu {
namespace {

// The value of `key` in the attribute's kvlist, or nullptr.
const runtime::AttrValue* FindKey(const runtime::Metric& metric, std::string_view key) {
  const runtime::Attribute& attribute = metric.attribute();
  if (attribute.key() == key) return &attribute.value();
  if (!attribute.value().has_kvlist_attr()) return nullptr;
  for (const runtime::Attribute& entry : attribute.value().kvlist_attr().attributes()) {
    if (entry.key() == key) return &entry.value();
  }
  return nullptr;
}

std::optional<int> IntFrom(const runtime::AttrValue& value) {
  if (value.has_int_attr()) return static_cast<int>(value.int_attr());
  if (value.has_string_attr()) {
    const std::string& s = value.string_attr();
    char* end = nullptr;
    long parsed = std::strtol(s.c_str(), &end, 10);
    if (!s.empty() && end == s.c_str() + s.size() && parsed >= 0) return static_cast<int>(parsed);
  }
  return std::nullopt;
}

// Finite bucket upper bounds (in the runtime's unit) and the outer edges of the open buckets.
struct Layout {
  std::vector<double> bounds;
  double underflow_lower = 0;
  double overflow_upper = 0;
};

Result<Layout> BucketLayout(const runtime::Distribution& in) {
  const auto& options = in.bucket_options();
  Layout layout;
  if (options.has_exponential_buckets()) {
    const auto& e = options.exponential_buckets();
    if (e.num_finite_buckets() < 0 || e.growth_factor() <= 1 || e.scale() <= 0) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("exponential buckets need growth_factor > 1 and scale > 0, got "
                                   "growth_factor {} scale {}",
                                   e.growth_factor(), e.scale()));
    }
    layout.bounds =
        Distribution::ExponentialBounds(e.scale(), e.growth_factor(), e.num_finite_buckets() + 1);
    layout.underflow_lower = e.scale() / e.growth_factor();
    layout.overflow_upper = layout.bounds.back() * e.growth_factor();
  } else if (options.has_linear_buckets()) {
    const auto& l = options.linear_buckets();
    if (l.num_finite_buckets() < 0 || l.width() <= 0) {
      return MakeError(ErrorCode::kParse,
                       fmt::format("linear buckets need width > 0, got {}", l.width()));
    }
    for (int i = 0; i <= l.num_finite_buckets(); ++i)
      layout.bounds.push_back(l.offset() + l.width() * i);
    layout.underflow_lower = l.offset() - l.width();
    layout.overflow_upper = layout.bounds.back() + l.width();
  } else if (options.has_explicit_buckets()) {
    layout.bounds.assign(options.explicit_buckets().bounds().begin(),
                         options.explicit_buckets().bounds().end());
    if (layout.bounds.empty()) {
      return MakeError(ErrorCode::kParse, "explicit buckets without bounds");
    }
    for (size_t i = 1; i < layout.bounds.size(); ++i) {
      if (!(layout.bounds[i] > layout.bounds[i - 1])) {
        return MakeError(ErrorCode::kParse, "explicit bucket bounds are not strictly increasing");
      }
    }
    // No pattern to continue: the open buckets end at the runtime's observed extremes.
    layout.underflow_lower = std::min(in.min(), layout.bounds.front());
    layout.overflow_upper = std::max(in.max(), layout.bounds.back());
  } else if (options.options_case() == runtime::Distribution::BucketOptions::kRegularBuckets) {
    return MakeError(
        ErrorCode::kUnsupported,
        "the runtime sent deprecated regular buckets, which this client does not read");
  } else {
    return MakeError(ErrorCode::kParse, "distribution without bucket options");
  }
  return layout;
}

}  // namespace

std::optional<int> DeviceOrdinal(const runtime::Metric& metric) {
  if (const runtime::AttrValue* v = FindKey(metric, "device_ordinal")) return IntFrom(*v);
  const runtime::AttrValue& value = metric.attribute().value();
  if (value.has_int_attr()) return static_cast<int>(value.int_attr());
  return std::nullopt;
}

std::string BufferSizeLabel(const runtime::Metric& metric) {
  const runtime::AttrValue* v = FindKey(metric, "buffer-size");
  if (v == nullptr) return {};
  if (v->has_string_attr()) return v->string_attr();
  if (v->has_int_attr()) return std::to_string(v->int_attr());
  return {};
}

std::optional<double> GaugeValue(const runtime::Metric& metric) {
  if (!metric.has_gauge()) return std::nullopt;
  const runtime::Gauge& g = metric.gauge();
  switch (g.value_case()) {
    case runtime::Gauge::kAsDouble:
      return g.as_double();
    case runtime::Gauge::kAsInt:
      return static_cast<double>(g.as_int());
    case runtime::Gauge::kAsBool:
      return g.as_bool() ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

Result<Distribution> ToDistribution(const runtime::Distribution& in, double unit_scale) {
  XPUPERF_ASSIGN_OR_RETURN(Layout layout, BucketLayout(in));
  const size_t buckets = layout.bounds.size() + 1;
  if (static_cast<size_t>(in.bucket_counts_size()) > buckets) {
    return MakeError(ErrorCode::kParse, fmt::format("{} bucket counts for {} buckets",
                                                    in.bucket_counts_size(), buckets));
  }
  std::vector<double> bounds;
  for (double b : layout.bounds) bounds.push_back(b * unit_scale);
  Distribution out = Distribution::WithBounds(std::move(bounds));
  // Trailing empty buckets may be left out on the wire.
  size_t first = buckets;
  size_t last = 0;
  for (int i = 0; i < in.bucket_counts_size(); ++i) {
    if (in.bucket_counts(i) < 0) {
      return MakeError(ErrorCode::kParse, fmt::format("negative count in bucket {}", i));
    }
    if (in.bucket_counts(i) == 0) continue;
    const size_t index = static_cast<size_t>(i);
    out.counts[index] = static_cast<uint64_t>(in.bucket_counts(i));
    out.count += out.counts[index];
    first = std::min(first, index);
    last = std::max(last, index);
  }
  // Exponential histograms are tpu-info's domain: its exact rule. Linear and explicit ones
  // (tpu-info prints 0.00 for them) rank whole samples too, clamped to what the runtime observed.
  out.rank = in.bucket_options().has_exponential_buckets() ? Distribution::Rank::kTpuInfo
                                                           : Distribution::Rank::kWholeSamples;
  if (in.bucket_options().has_exponential_buckets() || in.bucket_options().has_linear_buckets()) {
    out.underflow_lower = layout.underflow_lower * unit_scale;
    out.overflow_upper = layout.overflow_upper * unit_scale;
  }
  if (out.count == 0) return out;
  const auto& raw = layout.bounds;
  const double edge_min = first == 0 ? layout.underflow_lower : raw[first - 1];
  const double edge_max = last == raw.size() ? layout.overflow_upper : raw[last];
  // The runtime sends the observed extremes; proto3 leaves both 0 when it does not. Extremes
  // outside the non-empty buckets contradict the counts, which then win.
  const bool observed = (in.min() != 0 || in.max() != 0) && std::isfinite(in.min()) &&
                        std::isfinite(in.max()) && edge_min <= in.min() && in.min() <= in.max() &&
                        in.max() <= edge_max;
  out.min = (observed ? in.min() : edge_min) * unit_scale;
  out.max = (observed ? in.max() : edge_max) * unit_scale;
  // The runtime's mean is of the observed values; the bucket counts define the count.
  out.sum = in.mean() * unit_scale * static_cast<double>(out.count);
  return out;
}

}  // namespace xpuperf::tpu

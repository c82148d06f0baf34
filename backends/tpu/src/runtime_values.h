// Internal to the TPU backend: reading values out of runtime metric messages.
#pragma once

#include <optional>
#include <string>

#include "tpu_metric_service.pb.h"
#include "xpuperf/core/distribution.h"
#include "xpuperf/core/status.h"

namespace xpuperf::tpu {

namespace runtime = ::tpu::monitoring::runtime;

// The runtime device ordinal a series belongs to: the attribute's int value (HBM, duty cycle), or
// the kvlist key "device_ordinal" (HLO metrics; a string in newer libtpu, an int in older ones).
std::optional<int> DeviceOrdinal(const runtime::Metric& metric);

// The "buffer-size" bucket label of a transfer-latency series ("8MB+"); empty when absent.
std::string BufferSizeLabel(const runtime::Metric& metric);

// A gauge as a number: double, int or bool (1/0); nullopt for strings and other measures.
std::optional<double> GaugeValue(const runtime::Metric& metric);

// The runtime's histogram as an xpuperf::Distribution whose Percentile() gives tpu-info's numbers
// (Rank::kTpuInfo for exponential buckets: not clamped to the observed range). `unit_scale`
// converts bucket bounds and the mean to the catalog unit (1e-6 for microseconds -> seconds).
// Bucket i of N exponential buckets covers [scale*g^(i-1), scale*g^i); the outer edges continue the
// pattern (underflow from scale/g, overflow up to scale*g^(N+1)). min and max are the runtime's
// observed extremes when it sends them (and they agree with the counts), otherwise the edges of the
// outermost non-empty buckets. Linear buckets extend the same way; explicit buckets take the
// runtime's min/max for the open ends. kParse when there are more bucket counts than buckets, a
// negative count, or non-increasing bounds; kUnsupported for the deprecated regular buckets.
Result<Distribution> ToDistribution(const runtime::Distribution& in, double unit_scale);

}  // namespace xpuperf::tpu

#include "metric_map.h"

#include <array>

#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::tpu {
namespace {

namespace m = metrics;

// Runtime names from shared/reference/tpu.md section 3.
constexpr std::array kGauges = {
    GaugeMapping{m::kMemoryTotal, kHbmTotal, Combine::kSum, false},
    GaugeMapping{m::kMemoryUsed, "tpu.runtime.hbm.memory.usage.bytes", Combine::kSum, false},
    GaugeMapping{m::kDutyCycle, "tpu.runtime.tensorcore.dutycycle.percent", Combine::kMean, true},
    GaugeMapping{m::kMemoryBandwidthUtilization, "tpu.runtime.hbm.utilization.percent",
                 Combine::kMean, false},
    GaugeMapping{m::kQueueSize, "hlo.queue.size.gauge", Combine::kSum, true},
    // A chip is as idle as its cores on average; each core keeps its own sample.
    GaugeMapping{m::kIdleDuration, "tpu.runtime.tensorcore.idle_duration.seconds", Combine::kMean,
                 true},
};

constexpr std::array kLatencies = {
    LatencyMapping{"megascale.dcn_transfer_latencies.microsecond.cumulative.distribution", "dcn"},
    LatencyMapping{"megascale.dcn_inbound_transfer_latencies.microsecond.cumulative.distribution",
                   "dcn_inbound"},
    LatencyMapping{
        "megascale.host_to_device_transfer_latencies.microsecond.cumulative.distribution",
        "host_to_device"},
    LatencyMapping{
        "megascale.device_to_host_transfer_latencies.microsecond.cumulative.distribution",
        "device_to_host"},
    LatencyMapping{"megascale.collective_end_to_end_latencies.microsecond.cumulative.distribution",
                   "collective_e2e"},
    // tpu-info's "host compute latency" and "gRPC TCP minimum RTT" tables.
    LatencyMapping{"megascale.mxla_compute_latencies.microsecond.cumulative.distribution",
                   "host_compute"},
    LatencyMapping{"megascale.grpc_tcp_min_rtt.microsecond.cumulative.distribution",
                   "grpc_tcp_min_rtt"},
};

}  // namespace

std::span<const GaugeMapping> GaugeMappings() { return kGauges; }
std::span<const LatencyMapping> TransferLatencyMappings() { return kLatencies; }

}  // namespace xpuperf::tpu

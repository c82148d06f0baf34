#include "fake_runtime_scenarios.h"

#include <string>

namespace xpuperf::tpu::testing {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

runtime::Metric WithDistribution(int ordinal, runtime::Distribution d) {
  runtime::Metric m;
  *m.mutable_distribution() = std::move(d);
  return WithKvOrdinal(std::move(m), ordinal, /*as_string=*/true);
}

runtime::Metric LatencySeries(std::string_view buffer_size, runtime::Distribution d) {
  runtime::Metric m;
  *m.mutable_distribution() = std::move(d);
  return WithBufferSize(std::move(m), buffer_size);
}

FakeRuntimeScript Busy() {
  FakeRuntimeScript s;
  s.metrics.push_back(
      NamedMetric("tpu.runtime.hbm.memory.total.bytes",
                  {IntGaugeForOrdinal(0, 16 * kGiB), IntGaugeForOrdinal(1, 16 * kGiB)}));
  s.metrics.push_back(
      NamedMetric("tpu.runtime.hbm.memory.usage.bytes",
                  {IntGaugeForOrdinal(0, 4 * kGiB), IntGaugeForOrdinal(1, 8 * kGiB)}));
  s.metrics.push_back(NamedMetric("tpu.runtime.tensorcore.dutycycle.percent",
                                  {GaugeForOrdinal(0, 75.5), GaugeForOrdinal(1, 12.25)}));
  s.metrics.push_back(NamedMetric("tpu.runtime.hbm.utilization.percent",
                                  {GaugeForOrdinal(0, 40), GaugeForOrdinal(1, 5)}));
  // Seconds as a double gauge: tpu-info reads gauge.as_double (an int gauge shows as 0.00s).
  s.metrics.push_back(NamedMetric("tpu.runtime.tensorcore.idle_duration.seconds",
                                  {GaugeForOrdinal(0, 0), GaugeForOrdinal(1, 42)}));
  // Queue size keyed the new way (string ordinal) on chip 0 and the old way (int) on chip 1.
  s.metrics.push_back(
      NamedMetric("hlo.queue.size.gauge", {WithKvOrdinal(IntGaugeForOrdinal(-1, 3), 0, true),
                                           WithKvOrdinal(IntGaugeForOrdinal(-1, 1), 1, false)}));
  // Percentiles as tpu-info computes them: rank r = floor(q*count), in the first bucket whose
  // cumulative count exceeds r, value = lower + (r - below)/count_in_bucket * (upper - lower);
  // xpuperf then clamps to the observed [min, max] the runtime sends.
  // Chip 0, exponential buckets [2^(i-1), 2^i) us: 10 in [128,256), 80 in [256,512), 10 in
  // [512,1024), observed 130..1000 us. p50: r 50 -> 40/80 into [256,512) -> 384 us. p90: r 90 ->
  // 0/10 into [512,1024) -> 512 us. p95: r 95 -> 5/10 -> 768 us. p999: r 99 -> 9/10 -> 972.8 us.
  // Chip 1, explicit bounds 100,200,400,800 us: 5 in [100,200), 3 in [200,400), 2 in [400,800),
  // observed 120..590 us. p50: r 5 -> 0/3 into [200,400) -> 200 us. p90: r 9 -> 1/2 into
  // [400,800) -> 600, clamped to the observed maximum 590 us; p95 and p999 (r 9) the same.
  s.metrics.push_back(NamedMetric(
      "hlo.execution.timing.distribution.microseconds",
      {WithDistribution(
           0, Observed(ExponentialDistribution(20, 2, 1, {0, 0, 0, 0, 0, 0, 0, 0, 10, 80, 10}, 400),
                       130, 1000)),
       WithDistribution(
           1, Observed(ExplicitDistribution({100, 200, 400, 800}, {0, 5, 3, 2}, 290), 120, 590))}));
  // DCN: exponential buckets [10*10^(i-1), 10*10^i) us. "1MB+": 60 in [100,1000), 40 in
  // [1000,10000), observed 105..9990 us. p50: r 50 -> 50/60 -> 100 + 0.8333*900 = 850 us;
  // p90: r 90 -> 30/40 -> 7750; p95: r 95 -> 35/40 -> 8875; p999: r 99 -> 39/40 -> 9775 us.
  // "8MB+" comes as two series that are summed first: 5 in [1000,10000) and 5 + 10 in
  // [10000,100000), observed 1200..60000 and 20000..99000 us. p50: r 10 -> 5/15 -> 40000 us;
  // p90: r 18 -> 13/15 -> 88000; p95: r 19 -> 14/15 -> 94000; p999: r 19 -> 94000 us.
  s.metrics.push_back(NamedMetric(
      "megascale.dcn_transfer_latencies.microsecond.cumulative.distribution",
      {LatencySeries("1MB+",
                     Observed(ExponentialDistribution(5, 10, 10, {0, 0, 60, 40}, 2000), 105, 9990)),
       LatencySeries("8MB+", Observed(ExponentialDistribution(5, 10, 10, {0, 0, 0, 5, 5}, 30000),
                                      1200, 60000)),
       LatencySeries("8MB+", Observed(ExponentialDistribution(5, 10, 10, {0, 0, 0, 0, 10}, 50000),
                                      20000, 99000))}));
  // Host to device, linear buckets of 50 us from 0, no observed extremes sent (min/max are then
  // the outer edges 0 and 150 us): "4MB": 2 in [0,50), 6 in [50,100), 2 in [100,150).
  // p50: r 5 -> 3/6 -> 75 us; p90: r 9 -> 1/2 into [100,150) -> 125; p95 and p999 (r 9) 125 us.
  s.metrics.push_back(
      NamedMetric("megascale.host_to_device_transfer_latencies.microsecond.cumulative.distribution",
                  {LatencySeries("4MB", LinearDistribution(4, 50, 0, {0, 2, 6, 2}, 80))}));
  s.status = StatusWithChips(2, 1);
  // TPU-Z's view of the cores: chip 0 runs a program with two more queued and its debugger server
  // up; chip 1 idles with its sequencer at 0.
  auto& busy = (*s.status->mutable_core_states())[0];
  busy.set_program_fingerprint(std::string("\xde\xad\xbe\xef\x01", 5));
  busy.set_xdb_server_running(true);
  busy.set_launch_id(7);
  auto* sequencer = busy.add_sequencer_info();
  sequencer->set_sequencer_type(::tpu_telemetry::TPU_SEQUENCER_TYPE_TENSOR_CORE_SEQUENCER);
  sequencer->set_sequencer_index(0);
  sequencer->set_pc(4096);
  sequencer->set_tag(1);
  sequencer->set_tracemark(12);
  sequencer->set_program_id(3);
  sequencer->set_run_id(41);
  const std::pair<int64_t, std::string> queued[] = {{42, std::string("\x01\x02", 2)},
                                                    {43, std::string("\x0a\x0b\x0c", 3)}};
  int64_t launch = 8;
  for (const auto& [run, fingerprint] : queued) {
    auto* program = busy.add_queued_program_info();
    program->set_run_id(run);
    program->set_launch_id(launch++);
    program->set_program_fingerprint(fingerprint);
  }
  auto* idle = (*s.status->mutable_core_states())[1].add_sequencer_info();
  idle->set_sequencer_type(::tpu_telemetry::TPU_SEQUENCER_TYPE_TENSOR_CORE_SEQUENCER);
  idle->set_sequencer_index(0);
  idle->set_pc(0);
  (*s.status->mutable_core_states())[1].set_xdb_server_running(false);
  return s;
}

FakeRuntimeScript DualCore() {
  FakeRuntimeScript s;
  s.metrics.push_back(
      NamedMetric("tpu.runtime.hbm.memory.total.bytes",
                  {IntGaugeForOrdinal(0, 96 * kGiB), IntGaugeForOrdinal(1, 96 * kGiB)}));
  s.metrics.push_back(
      NamedMetric("tpu.runtime.hbm.memory.usage.bytes",
                  {IntGaugeForOrdinal(0, 10 * kGiB), IntGaugeForOrdinal(1, 30 * kGiB)}));
  s.metrics.push_back(NamedMetric("tpu.runtime.tensorcore.dutycycle.percent",
                                  {GaugeForOrdinal(0, 90), GaugeForOrdinal(1, 50)}));
  s.status = StatusWithChips(1, 2);
  return s;
}

FakeRuntimeScript Empty() {
  FakeRuntimeScript s;
  for (std::string_view name :
       {"tpu.runtime.hbm.memory.total.bytes", "tpu.runtime.hbm.memory.usage.bytes",
        "tpu.runtime.tensorcore.dutycycle.percent",
        "hlo.execution.timing.distribution.microseconds"}) {
    s.metrics.push_back(NamedMetric(name, {}));
  }
  return s;
}

}  // namespace

runtime::Metric GaugeForOrdinal(int ordinal, double value) {
  runtime::Metric m;
  m.mutable_attribute()->set_key("device-id");
  m.mutable_attribute()->mutable_value()->set_int_attr(ordinal);
  m.mutable_gauge()->set_as_double(value);
  return m;
}

runtime::Metric IntGaugeForOrdinal(int ordinal, int64_t value) {
  runtime::Metric m = GaugeForOrdinal(ordinal, 0);
  m.mutable_gauge()->set_as_int(value);
  return m;
}

runtime::Metric WithKvOrdinal(runtime::Metric metric, int ordinal, bool as_string) {
  metric.mutable_attribute()->Clear();
  auto* entry =
      metric.mutable_attribute()->mutable_value()->mutable_kvlist_attr()->add_attributes();
  entry->set_key("device_ordinal");
  if (as_string) {
    entry->mutable_value()->set_string_attr(std::to_string(ordinal));
  } else {
    entry->mutable_value()->set_int_attr(ordinal);
  }
  return metric;
}

runtime::Metric WithBufferSize(runtime::Metric metric, std::string_view buffer_size) {
  auto* entry =
      metric.mutable_attribute()->mutable_value()->mutable_kvlist_attr()->add_attributes();
  entry->set_key("buffer-size");
  entry->mutable_value()->set_string_attr(std::string(buffer_size));
  return metric;
}

namespace {
runtime::Distribution WithCounts(runtime::Distribution d, const std::vector<int64_t>& counts,
                                 double mean) {
  int64_t total = 0;
  for (int64_t c : counts) {
    d.add_bucket_counts(c);
    total += c;
  }
  d.set_count(total);
  d.set_mean(mean);
  return d;
}
}  // namespace

runtime::Distribution ExponentialDistribution(int num_finite_buckets, double growth, double scale,
                                              const std::vector<int64_t>& counts, double mean) {
  runtime::Distribution d;
  auto* e = d.mutable_bucket_options()->mutable_exponential_buckets();
  e->set_num_finite_buckets(num_finite_buckets);
  e->set_growth_factor(growth);
  e->set_scale(scale);
  return WithCounts(std::move(d), counts, mean);
}

runtime::Distribution LinearDistribution(int num_finite_buckets, double width, double offset,
                                         const std::vector<int64_t>& counts, double mean) {
  runtime::Distribution d;
  auto* l = d.mutable_bucket_options()->mutable_linear_buckets();
  l->set_num_finite_buckets(num_finite_buckets);
  l->set_width(width);
  l->set_offset(offset);
  return WithCounts(std::move(d), counts, mean);
}

runtime::Distribution Observed(runtime::Distribution d, double min, double max) {
  d.set_min(min);
  d.set_max(max);
  return d;
}

runtime::Distribution ExplicitDistribution(const std::vector<double>& bounds,
                                           const std::vector<int64_t>& counts, double mean) {
  runtime::Distribution d;
  for (double b : bounds) d.mutable_bucket_options()->mutable_explicit_buckets()->add_bounds(b);
  return WithCounts(std::move(d), counts, mean);
}

runtime::TPUMetric NamedMetric(std::string_view name, std::vector<runtime::Metric> series) {
  runtime::TPUMetric metric;
  metric.set_name(std::string(name));
  for (runtime::Metric& m : series) *metric.add_metrics() = std::move(m);
  return metric;
}

runtime::GetTpuRuntimeStatusResponse StatusWithChips(int chips, int cores_per_chip) {
  runtime::GetTpuRuntimeStatusResponse status;
  status.set_host_name("fake-tpu-host");
  for (int chip = 0; chip < chips; ++chip) {
    for (int core = 0; core < cores_per_chip; ++core) {
      const int global = chip * cores_per_chip + core;
      auto& state = (*status.mutable_core_states())[global];
      state.mutable_core_id()->set_global_core_id(global);
      state.mutable_core_id()->set_chip_id(chip);
      state.mutable_core_id()->mutable_core_on_chip()->set_type(
          ::tpu_telemetry::TPU_CORE_TYPE_TENSOR_CORE);
      state.mutable_core_id()->mutable_core_on_chip()->set_index(core);
    }
  }
  return status;
}

std::optional<FakeRuntimeScript> Scenario(std::string_view name) {
  if (name == "busy") return Busy();
  if (name == "dual-core") return DualCore();
  if (name == "empty") return Empty();
  if (name == "unavailable") {
    FakeRuntimeScript s = Busy();
    s.fail_with = grpc::StatusCode::UNAVAILABLE;
    return s;
  }
  if (name == "core-error") {
    // The second chip's TensorCore halted, as the runtime reports it in its status.
    FakeRuntimeScript s = Busy();
    (*s.status->mutable_core_states())[1].set_error_message(
        "TensorCore halted: uncorrectable HBM error at 0x3f000\nstack: ...");
    return s;
  }
  if (name == "slow") {
    FakeRuntimeScript s = Busy();
    s.delay = std::chrono::milliseconds(3000);
    return s;
  }
  return std::nullopt;
}

}  // namespace xpuperf::tpu::testing

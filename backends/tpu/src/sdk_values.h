// Internal to the TPU backend: the text values of libtpu's monitoring SDK, parsed in the formats
// its metrics' descriptions state (libtpu 0.0.52: `get_metric(name).description()`). Every list
// item is untrusted text; an item that does not parse is skipped and counted, never guessed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xpuperf::tpu {

// "20.00", "20.00%", "33550229504": a number per chip or core, in list order.
struct IndexedValue {
  size_t index = 0;
  double value = 0;
};
std::vector<IndexedValue> ParseIndexedNumbers(const std::vector<std::string>& data);

// "tensorcore_1: 10" (hlo_queue_size), "tray1.chip3.ici0.int: 0" (ici_link_health): a name and a
// number.
struct NamedValue {
  std::string name;
  double value = 0;
};
std::vector<NamedValue> ParseNamedNumbers(const std::vector<std::string>& data);

// "1-1" (tpu_throttle_score): the chip's id and its score.
std::vector<IndexedValue> ParseIdScores(const std::vector<std::string>& data);

// "8MB+, 100.00, 200.00, 300.00, 400.00, 500.00" (transfer latencies: buffer size, then mean,
// P50, P90, P95, P99.9), "tensorcore_0, …" (hlo_execution_timing), "2MB+-ALL_REDUCE, …"
// (collective_e2e_latency) or "100.00, 200.00, …" (tcp_min_rtt, tcp_delivery_rate, no key). Each
// item is one row; a list of bare numbers with no comma in any item is one row.
struct SummaryRow {
  std::string key;  // empty for the keyless metrics
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p999 = 0;
};
std::vector<SummaryRow> ParseSummaryRows(const std::vector<std::string>& data, bool keyed);

// "tensorcore_3" or "3" -> 3.
std::optional<int> CoreNumber(std::string_view name);

}  // namespace xpuperf::tpu

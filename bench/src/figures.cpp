#include "xpuperf/bench/figures.h"

namespace xpuperf::bench {
namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string_view WithoutSuffix(std::string_view text, std::string_view suffix) {
  return text.substr(0, text.size() - suffix.size());
}

double NumberParameter(const nlohmann::json& parameters, const char* key) {
  if (!parameters.is_object()) return 0;
  const auto it = parameters.find(key);
  return it != parameters.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The precision of a compute metric: "fp64_flops" -> "fp64", "int8_ops" -> "int8".
std::optional<std::string> ComputePrecision(std::string_view metric) {
  for (std::string_view suffix : {std::string_view("_flops"), std::string_view("_ops")}) {
    if (EndsWith(metric, suffix)) return std::string(WithoutSuffix(metric, suffix));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Figure> ClassifyRecord(std::string_view benchmark, std::string_view metric,
                                     const nlohmann::json& parameters) {
  // Accelerator benchmarks count like their CPU namesakes: gpu_* (CUDA) and pjrt_* (any PJRT
  // device: TPU, GPU, XLA's CPU), whose collectives are the devices' network.
  const bool cuda = benchmark.rfind("gpu_", 0) == 0;
  const bool pjrt = benchmark.rfind("pjrt_", 0) == 0;
  const bool gpu = cuda || pjrt;
  const std::string_view base = cuda ? benchmark.substr(4) : pjrt ? benchmark.substr(5) : benchmark;
  auto figure = [gpu](FigureKind kind, std::string scope) {
    return Figure{kind, std::move(scope), gpu};
  };
  if (base == "peak_fma" || base == "gemm") {
    const std::optional<std::string> precision = ComputePrecision(metric);
    if (!precision) return std::nullopt;
    return figure(base == "gemm" ? FigureKind::kComputeGemm : FigureKind::kComputePeak, *precision);
  }
  if (base == "cache_sweep" && EndsWith(metric, "_read_bandwidth")) {
    return figure(FigureKind::kCacheBandwidth,
                  std::string(WithoutSuffix(metric, "_read_bandwidth")));
  }
  if (gpu && base == "l2_sweep" && metric == "read_bandwidth" &&
      NumberParameter(parameters, "working_set_bytes") <= NumberParameter(parameters, "l2_bytes")) {
    return figure(FigureKind::kL2Sweep, "L2");
  }
  if (base == "stream" && metric == "triad_bandwidth")
    return figure(FigureKind::kMainMemory, "triad");
  if (base == "host_transfer") {
    if (metric == "d2d_bandwidth") return figure(FigureKind::kDeviceCopy, "d2d");
    if (metric == "h2d_bandwidth" || metric == "d2h_bandwidth") {
      return figure(FigureKind::kHostLink, std::string(metric.substr(0, 3)));
    }
    return std::nullopt;
  }
  if (base == "collectives" && EndsWith(metric, "_busbw")) {
    return figure(FigureKind::kNetwork, std::string(WithoutSuffix(metric, "_busbw")));
  }
  return std::nullopt;
}

std::optional<Figure> ClassifyRecord(const Measurement& measurement) {
  return ClassifyRecord(measurement.benchmark, measurement.metric, measurement.parameters);
}

std::string FigureDeviceId(const std::vector<ResultRecord>& records) {
  for (const ResultRecord& record : records) {
    if (!record.device_backend.empty() && record.device_backend != "cpu") return record.device_id;
  }
  return {};
}

}  // namespace xpuperf::bench

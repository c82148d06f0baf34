// gpu_host_transfer: the engine's generic host_transfer benchmark (xpuperf/bench/host_transfer.h)
// with the CUDA engine. The extra point key `copy` picks the copy engines ("ce", default) or a copy
// kernel on the SMs ("sm").
#include <fmt/format.h>

#include "cuda/gpu_benchmarks.h"
#include "cuda/transfer_engine.h"
#include "xpuperf/bench/host_transfer.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

bench::TransferEngineFactory FactoryFor(bool sm_copies) {
  return [sm_copies](const Device& device,
                     int /*threads*/) -> Result<std::unique_ptr<bench::TransferEngine>> {
    if (device.backend != "nvidia") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: no CUDA transfer engine for backend '" + device.backend + "'");
    }
    return MakeCudaTransferEngine(device.index, sm_copies);
  };
}

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json() noexcept has an unreachable throw
struct SplitPoint {
  bool sm_copies = false;
  nlohmann::json rest;  // the point without `copy`
};

Result<SplitPoint> Split(const nlohmann::json& point) {
  if (!point.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, "gpu_host_transfer: a point must be a mapping");
  }
  SplitPoint split;
  split.rest = point;
  const nlohmann::json copy = point.value("copy", nlohmann::json("ce"));
  if (!copy.is_string() || (copy.get<std::string>() != "ce" && copy.get<std::string>() != "sm")) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "gpu_host_transfer: 'copy' must be ce (copy engine) or sm (copy kernel)");
  }
  split.sm_copies = copy.get<std::string>() == "sm";
  split.rest.erase("copy");
  return split;
}

class GpuHostTransferBenchmark final : public GpuBenchmark {
 public:
  GpuHostTransferBenchmark()
      : GpuBenchmark("gpu_host_transfer"),
        copy_engine_(bench::MakeHostTransferBenchmark(FactoryFor(false), "gpu_host_transfer")),
        sm_copy_(bench::MakeHostTransferBenchmark(FactoryFor(true), "gpu_host_transfer")) {}

  Status CanRun(const Device& device, const nlohmann::json& point) const override {
    XPUPERF_RETURN_IF_ERROR(GpuBenchmark::CanRun(device, point));
    XPUPERF_ASSIGN_OR_RETURN(const SplitPoint split, Split(point));
    return (split.sm_copies ? sm_copy_ : copy_engine_)->CanRun(device, split.rest);
  }

  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const SplitPoint split, Split(point));
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    XPUPERF_ASSIGN_OR_RETURN(std::vector<bench::Measurement> measurements,
                             (split.sm_copies ? sm_copy_ : copy_engine_)->Run(split.rest, context));
    for (bench::Measurement& m : measurements) {
      m.parameters["copy"] = split.sm_copies ? "sm" : "ce";
      m.parameters["device_name"] = device.name;
    }
    return measurements;
  }

 protected:
  Status CheckPoint(const CudaDeviceInfo&, const nlohmann::json& point) const override {
    XPUPERF_ASSIGN_OR_RETURN(const SplitPoint split, Split(point));
    XPUPERF_ASSIGN_OR_RETURN(const std::string direction,
                             TextParameter(split.rest, "direction", "h2d"));
    XPUPERF_ASSIGN_OR_RETURN(const std::string memory,
                             TextParameter(split.rest, "host_memory", "pinned"));
    if (split.sm_copies && direction != "d2d" && memory == "pageable") {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: SM copies need page-locked (pinned) host memory");
    }
    return Status::Ok();
  }

 private:
  std::unique_ptr<bench::Benchmark> copy_engine_;
  std::unique_ptr<bench::Benchmark> sm_copy_;
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeGpuHostTransferBenchmark() {
  return std::make_unique<GpuHostTransferBenchmark>();
}

}  // namespace xpuperf::cuda_bench

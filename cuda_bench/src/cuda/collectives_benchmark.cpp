// gpu_collectives: NCCL collectives over every GPU of this process (one communicator per GPU from
// ncclCommInitAll), with nccl-tests' algbw/busbw and a count of wrong elements.
#include <fmt/format.h>

#include <chrono>
#include <vector>

#include "cuda/gpu_benchmarks.h"
#include "cuda/nccl.h"
#include "kernels.h"
#include "xpuperf/bench/registry.h"
#include "xpuperf/cuda_bench/formulas.h"

namespace xpuperf::cuda_bench {
namespace {

// nccl-tests' timing: the host clock around the enqueued operations, all streams drained before
// and after.
class AllStreamsQueue final : public bench::ExecutionQueue {
 public:
  explicit AllStreamsQueue(const std::vector<cudaStream_t>& streams) : streams_(streams) {}
  std::string timing_source() const override {
    return fmt::format("host steady_clock around the {} GPU streams (synchronised)",
                       streams_.size());
  }
  double TimeSeconds(const std::function<void()>& enqueue) override {
    Drain();
    const auto start = std::chrono::steady_clock::now();
    enqueue();
    Drain();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  Status status() const { return status_; }
  void Record(Status status) {
    if (status_.ok() && !status.ok()) status_ = std::move(status);
  }

 private:
  void Drain() {
    for (size_t r = 0; r < streams_.size(); ++r) {
      ScopedDevice scope(static_cast<int>(r));
      Record(CudaCheck(cudaStreamSynchronize(streams_[r]), "cudaStreamSynchronize"));
    }
  }
  const std::vector<cudaStream_t>& streams_;
  Status status_;
};

struct Point {
  Collective collective = Collective::kAllReduce;
  uint64_t bytes = uint64_t{64} << 20;
};

Result<Point> ParsePoint(const nlohmann::json& point) {
  Point parsed;
  XPUPERF_ASSIGN_OR_RETURN(const std::string name,
                           TextParameter(point, "collective", "all_reduce"));
  XPUPERF_ASSIGN_OR_RETURN(parsed.collective, ParseCollective(name));
  if (point.contains("bytes")) {
    if (!point["bytes"].is_number_integer() || point["bytes"].get<int64_t>() < 4) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "gpu_collectives: 'bytes' must be an integer >= 4");
    }
    parsed.bytes = point["bytes"].get<uint64_t>();
  }
  return parsed;
}

class GpuCollectivesBenchmark final : public GpuBenchmark {
 public:
  GpuCollectivesBenchmark() : GpuBenchmark("gpu_collectives") {}
  ~GpuCollectivesBenchmark() override {
    if (nccl_ == nullptr) return;
    for (ncclComm_t comm : comms_) (void)nccl_->CommDestroy(comm);
    for (size_t r = 0; r < streams_.size(); ++r) {
      ScopedDevice scope(static_cast<int>(r));
      (void)cudaStreamDestroy(streams_[r]);
    }
  }

 protected:
  Status CheckPoint(const CudaDeviceInfo& device, const nlohmann::json& point) const override {
    XPUPERF_ASSIGN_OR_RETURN(const Point parsed, ParsePoint(point));
    XPUPERF_RETURN_IF_ERROR(LoadNccl());
    int count = 0;
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count));
    if (device.index != 0) {
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: gpu_collectives runs once over all {} GPUs, on "
                                   "GPU 0's turn",
                                   count));
    }
    if (CollectiveCount(parsed.collective, parsed.bytes, count) == 0) {
      return MakeError(
          ErrorCode::kInvalidArgument,
          fmt::format("gpu_collectives: {} bytes is less than one float per GPU", parsed.bytes));
    }
    return Status::Ok();
  }

 public:
  Result<std::vector<bench::Measurement>> Run(const nlohmann::json& point,
                                              bench::RunContext& context) override {
    XPUPERF_ASSIGN_OR_RETURN(const Point parsed, ParsePoint(point));
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo device, TargetDevice(context));
    XPUPERF_RETURN_IF_ERROR(Initialise());
    const int n = static_cast<int>(comms_.size());
    const Collective collective = parsed.collective;
    const uint64_t count = CollectiveCount(collective, parsed.bytes, n);
    if (count == 0) {
      return MakeError(ErrorCode::kInvalidArgument, "gpu_collectives: too few bytes");
    }
    const uint64_t send_elements = SendElements(collective, count, n);
    const uint64_t recv_elements = RecvElements(collective, count, n);
    std::vector<DeviceBuffer> send(static_cast<size_t>(n));
    std::vector<DeviceBuffer> recv(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      ScopedDevice scope(r);
      XPUPERF_ASSIGN_OR_RETURN(send[r], DeviceBuffer::Allocate(send_elements * sizeof(float)));
      XPUPERF_ASSIGN_OR_RETURN(recv[r], DeviceBuffer::Allocate(recv_elements * sizeof(float)));
      for (const PatternSegment& s : SendPattern(collective, r, n, count)) {
        XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillPattern(
            send[r].as<float>() + s.start, s.count, s.a, s.b, s.offset, streams_[r]));
      }
      // A stale value no collective produces.
      XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillPattern(recv[r].as<float>(), recv_elements,
                                                              -1.0f, 0.0f, 0, streams_[r]));
    }
    AllStreamsQueue queue(streams_);
    const auto run = [&](int64_t repetitions) {
      for (int64_t rep = 0; rep < repetitions; ++rep)
        queue.Record(Enqueue(collective, count, send, recv));
    };
    XPUPERF_ASSIGN_OR_RETURN(const bench::TimedSamples samples,
                             bench::CollectSamples(queue, context.sampling, run));
    XPUPERF_RETURN_IF_ERROR(queue.status());

    // nccl-tests' #wrong: every element of every rank's output against the expected pattern.
    unsigned long long wrong = 0;
    for (int r = 0; r < n; ++r) {
      ScopedDevice scope(r);
      XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer counter, DeviceBuffer::Allocate(sizeof(uint64_t)));
      XPUPERF_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(counter.get(), 0, sizeof(uint64_t), streams_[r]));
      for (const PatternSegment& s : ExpectedRecvPattern(collective, r, n, count)) {
        XPUPERF_CUDA_RETURN_IF_ERROR(
            kernels::LaunchCheckPattern(recv[r].as<float>() + s.start, s.count, s.a, s.b, s.offset,
                                        counter.as<unsigned long long>(), streams_[r]));
      }
      XPUPERF_ASSIGN_OR_RETURN(const unsigned long long rank_wrong,
                               ReadCounter(counter.as<unsigned long long>(), streams_[r]));
      wrong += rank_wrong;
    }
    const std::string name(CollectiveName(collective));
    if (wrong != 0) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("gpu_collectives {}: #wrong = {} over {} GPUs", name, wrong, n));
    }
    const double size = CollectiveBytes(collective, count, n);
    const double factor = BusBandwidthFactor(collective, n);
    std::vector<bench::Measurement> out;
    for (const bool bus : {false, true}) {
      // One GPU moves nothing between ranks: nccl-tests' factor is 0 and there is no bus
      // bandwidth to report (the algbw says so in its formula).
      if (bus && factor == 0) continue;
      bench::Measurement m =
          bench::MakeThroughput(this->name(), name + (bus ? "_busbw" : "_algbw"), samples,
                                bus ? size * factor : size, false, context);
      m.parameters = point;
      m.parameters["collective"] = name;
      m.parameters["ranks"] = n;
      m.parameters["count"] = count;
      m.parameters["size_bytes"] = size;
      m.parameters["type"] = "float";
      m.parameters["redop"] = "sum";
      m.parameters["busbw_factor"] = factor;
      m.parameters["wrong"] = wrong;
      m.parameters["nccl_version"] = version_;
      m.parameters["device_name"] = device.name;
      m.timing_source = queue.timing_source();
      std::string bus_note;
      if (bus) {
        bus_note = fmt::format(", busbw = algbw x {:.4g} (n = {})", factor, n);
      } else if (factor == 0) {
        bus_note = fmt::format(" (no busbw: its factor is 0 for {} over {} GPU)", name, n);
      }
      m.formula =
          fmt::format("S = {:.6g} bytes (nccl-tests size), algbw = S / t{}; ", size, bus_note) +
          m.formula;
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  Status Initialise() {
    if (!comms_.empty()) return Status::Ok();
    XPUPERF_ASSIGN_OR_RETURN(nccl_, LoadNccl());
    int n = 0;
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&n));
    std::vector<ncclComm_t> comms(static_cast<size_t>(n));
    std::vector<int> devices(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) devices[r] = r;
    XPUPERF_RETURN_IF_ERROR(
        nccl_->Check(nccl_->CommInitAll(comms.data(), n, devices.data()), "ncclCommInitAll"));
    comms_ = std::move(comms);
    for (int r = 0; r < n; ++r) {
      ScopedDevice scope(r);
      cudaStream_t stream = nullptr;
      XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      streams_.push_back(stream);
    }
    (void)nccl_->GetVersion(&version_);
    return Status::Ok();
  }

  Status Enqueue(Collective collective, uint64_t count, std::vector<DeviceBuffer>& send,
                 std::vector<DeviceBuffer>& recv) {
    const int n = static_cast<int>(comms_.size());
    XPUPERF_RETURN_IF_ERROR(nccl_->Check(nccl_->GroupStart(), "ncclGroupStart"));
    Status status;
    for (int r = 0; r < n && status.ok(); ++r) {
      const float* s = send[r].as<float>();
      float* d = recv[r].as<float>();
      ncclComm_t comm = comms_[r];
      cudaStream_t stream = streams_[r];
      switch (collective) {
        case Collective::kAllReduce:
          status = nccl_->Check(nccl_->AllReduce(s, d, count, ncclFloat, ncclSum, comm, stream),
                                "ncclAllReduce");
          break;
        case Collective::kAllGather:
          status =
              nccl_->Check(nccl_->AllGather(s, d, count, ncclFloat, comm, stream), "ncclAllGather");
          break;
        case Collective::kReduceScatter:
          status = nccl_->Check(nccl_->ReduceScatter(s, d, count, ncclFloat, ncclSum, comm, stream),
                                "ncclReduceScatter");
          break;
        case Collective::kBroadcast:
          status = nccl_->Check(nccl_->Broadcast(s, d, count, ncclFloat, 0, comm, stream),
                                "ncclBroadcast");
          break;
        case Collective::kAllToAll:
          for (int q = 0; q < n && status.ok(); ++q) {
            status = nccl_->Check(nccl_->Send(s + q * count, count, ncclFloat, q, comm, stream),
                                  "ncclSend");
            if (status.ok()) {
              status = nccl_->Check(nccl_->Recv(d + q * count, count, ncclFloat, q, comm, stream),
                                    "ncclRecv");
            }
          }
          break;
        case Collective::kSendRecv:
          status =
              nccl_->Check(nccl_->Send(s, count, ncclFloat, (r + 1) % n, comm, stream), "ncclSend");
          if (status.ok()) {
            status = nccl_->Check(nccl_->Recv(d, count, ncclFloat, (r + n - 1) % n, comm, stream),
                                  "ncclRecv");
          }
          break;
      }
    }
    const Status end = nccl_->Check(nccl_->GroupEnd(), "ncclGroupEnd");
    return status.ok() ? end : status;
  }

  const Nccl* nccl_ = nullptr;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  int version_ = 0;
};

}  // namespace

std::unique_ptr<bench::Benchmark> MakeGpuCollectivesBenchmark() {
  return std::make_unique<GpuCollectivesBenchmark>();
}

}  // namespace xpuperf::cuda_bench

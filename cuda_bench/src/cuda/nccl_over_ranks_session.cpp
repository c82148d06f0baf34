// NCCL collectives across ranks, one GPU per rank: ncclCommInitRank with rank 0's ncclUniqueId,
// the same data patterns and checks as gpu_collectives, CUDA events around each sample.
#include <fmt/format.h>

#include <cstring>

#include "cuda/cuda_util.h"
#include "cuda/nccl.h"
#include "kernels.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
#include "xpuperf/cuda_bench/formulas.h"
#include "xpuperf/cuda_bench/nccl_over_ranks.h"

namespace xpuperf::cuda_bench {
namespace {

static_assert(sizeof(ncclUniqueId) == sizeof(NcclIdBytes));

using collectives::CollectiveOp;
using collectives::RankGroup;

class CudaEvent {
 public:
  CudaEvent() { (void)cudaEventCreate(&event_); }
  ~CudaEvent() { (void)cudaEventDestroy(event_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class NcclRankSession final : public NcclOverRanks {
 public:
  NcclRankSession(RankGroup& group, const Nccl& nccl) : group_(group), nccl_(nccl) {}
  ~NcclRankSession() override {
    if (comm_ != nullptr) (void)nccl_.CommDestroy(comm_);
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }

  // This rank's device, stream and NCCL version; no collective call.
  Status Prepare() {
    int count = 0;
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count));
    XPUPERF_ASSIGN_OR_RETURN(device_, DeviceForLocalRank(group_.local_rank(), count));
    XPUPERF_ASSIGN_OR_RETURN(const CudaDeviceInfo info, QueryDevice(device_));
    device_name_ = info.name;
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    return nccl_.Check(nccl_.GetVersion(&version_), "ncclGetVersion");
  }

  Status Join() {
    XPUPERF_ASSIGN_OR_RETURN(
        const NcclIdBytes bytes, ShareUniqueId(group_, [this]() -> Result<NcclIdBytes> {
          ncclUniqueId id;
          XPUPERF_RETURN_IF_ERROR(nccl_.Check(nccl_.GetUniqueId(&id), "ncclGetUniqueId"));
          NcclIdBytes out;
          std::memcpy(out.data(), &id, sizeof(id));
          return out;
        }));
    ncclUniqueId id;
    std::memcpy(&id, bytes.data(), sizeof(id));
    const Status joined = nccl_.Check(nccl_.CommInitRank(&comm_, group_.ranks(), id, group_.rank()),
                                      "ncclCommInitRank");
    return AgreeOnStatus(group_, joined);
  }

  std::string description() const override {
    return fmt::format("NCCL {}.{}.{}, GPU {} {} on rank 0", version_ / 10000, version_ / 100 % 100,
                       version_ % 100, device_, device_name_);
  }

  Result<collectives::CollectiveResult> Run(CollectiveOp op, int64_t bytes,
                                            const collectives::TimingOptions& timing,
                                            bool in_place) override {
    if (timing.iterations < 1 || timing.samples < 1 || timing.warmup_iterations < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "collectives need iterations >= 1, samples >= 1 and warm-up >= 0");
    }
    if (in_place && (op == CollectiveOp::kAllToAll || op == CollectiveOp::kSendRecv)) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: NCCL has no in-place all_to_all or send_recv");
    }
    in_place_ = in_place;
    const int n = group_.ranks();
    collectives::CollectiveResult result;
    result.op = op;
    result.ranks = n;
    XPUPERF_ASSIGN_OR_RETURN(result.shape, NcclShapeFor(op, bytes, n));
    XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, Allocate(op, result.shape)));

    const auto once = [&] { return AgreeOnStatus(group_, Enqueue(op, result.shape.count)); };
    // One checked operation: in place, from the pattern again and with the result brought to
    // recv_ where Verify reads it.
    const auto checked = [&]() -> Status {
      if (in_place_) XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, ResetInPlace(op, result.shape)));
      XPUPERF_RETURN_IF_ERROR(once());
      if (in_place_)
        XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, CollectInPlace(op, result.shape)));
      return Verify(op, result);
    };
    XPUPERF_RETURN_IF_ERROR(checked());
    for (int i = 0; i < timing.warmup_iterations; ++i) XPUPERF_RETURN_IF_ERROR(once());
    CudaEvent start;
    CudaEvent stop;
    for (int sample = 0; sample < timing.samples; ++sample) {
      Status local = CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, local));
      XPUPERF_RETURN_IF_ERROR(group_.Barrier());
      local = CudaCheck(cudaEventRecord(start.get(), stream_), "cudaEventRecord");
      for (int i = 0; i < timing.iterations && local.ok(); ++i) {
        local = Enqueue(op, result.shape.count);
      }
      float ms = 0;
      if (local.ok()) local = CudaCheck(cudaEventRecord(stop.get(), stream_), "cudaEventRecord");
      if (local.ok()) local = CudaCheck(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
      if (local.ok()) {
        local = CudaCheck(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsed");
      }
      XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, local));
      XPUPERF_RETURN_IF_ERROR(RecordSample(group_, ms * 1e-3, timing.iterations, result));
      if (timing.check_every_sample) {
        XPUPERF_RETURN_IF_ERROR(in_place_ ? checked() : Verify(op, result));
      }
    }
    return result;
  }

 private:
  Status Allocate(CollectiveOp op, const collectives::CollectiveShape& shape) {
    const auto send_elements = static_cast<uint64_t>(shape.send_elements);
    const auto recv_elements = static_cast<uint64_t>(shape.recv_elements);
    XPUPERF_ASSIGN_OR_RETURN(send_, DeviceBuffer::Allocate(send_elements * sizeof(float)));
    XPUPERF_ASSIGN_OR_RETURN(recv_, DeviceBuffer::Allocate(recv_elements * sizeof(float)));
    const auto count = static_cast<uint64_t>(shape.count);
    for (const PatternSegment& s : SendPattern(op, group_.rank(), group_.ranks(), count)) {
      XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillPattern(send_.as<float>() + s.start, s.count,
                                                              s.a, s.b, s.offset, stream_));
    }
    // A stale value no collective produces.
    XPUPERF_CUDA_RETURN_IF_ERROR(
        kernels::LaunchFillPattern(recv_.as<float>(), recv_elements, -1.0f, 0.0f, 0, stream_));
    return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // In place: the input where the result will land, from the pattern (recv_ otherwise unwritten).
  Status ResetInPlace(CollectiveOp op, const collectives::CollectiveShape& shape) {
    const auto count = static_cast<uint64_t>(shape.count);
    for (const PatternSegment& s : SendPattern(op, group_.rank(), group_.ranks(), count)) {
      XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchFillPattern(send_.as<float>() + s.start, s.count,
                                                              s.a, s.b, s.offset, stream_));
    }
    const auto recv_elements = static_cast<uint64_t>(shape.recv_elements);
    XPUPERF_CUDA_RETURN_IF_ERROR(
        kernels::LaunchFillPattern(recv_.as<float>(), recv_elements, -1.0f, 0.0f, 0, stream_));
    const size_t block = count * sizeof(float);
    float* recv = recv_.as<float>();
    const float* send = send_.as<float>();
    switch (op) {
      case CollectiveOp::kAllReduce:
        XPUPERF_CUDA_RETURN_IF_ERROR(
            cudaMemcpyAsync(recv, send, block, cudaMemcpyDeviceToDevice, stream_));
        break;
      case CollectiveOp::kBroadcast:
        if (group_.rank() == 0) {
          XPUPERF_CUDA_RETURN_IF_ERROR(
              cudaMemcpyAsync(recv, send, block, cudaMemcpyDeviceToDevice, stream_));
        }
        break;
      case CollectiveOp::kAllGather:
        XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(recv + group_.rank() * count, send, block,
                                                     cudaMemcpyDeviceToDevice, stream_));
        break;
      case CollectiveOp::kReduceScatter:  // the input is send_ itself
      case CollectiveOp::kAllToAll:
      case CollectiveOp::kSendRecv:
        break;
    }
    return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // In place, reduce_scatter's result is this rank's block of send_: copied to recv_ for Verify.
  Status CollectInPlace(CollectiveOp op, const collectives::CollectiveShape& shape) {
    if (op != CollectiveOp::kReduceScatter) return Status::Ok();
    const auto count = static_cast<uint64_t>(shape.count);
    XPUPERF_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(recv_.as<float>(), send_.as<float>() + group_.rank() * count,
                        count * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // Every element of this rank's output against the expected pattern, summed over the ranks.
  Status Verify(CollectiveOp op, collectives::CollectiveResult& result) {
    unsigned long long wrong = 0;
    const Status local = [&]() -> Status {
      XPUPERF_ASSIGN_OR_RETURN(DeviceBuffer counter, DeviceBuffer::Allocate(sizeof(uint64_t)));
      auto* device_wrong = counter.as<unsigned long long>();
      XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(device_wrong, 0, sizeof(uint64_t), stream_));
      const auto count = static_cast<uint64_t>(result.shape.count);
      for (const PatternSegment& s :
           ExpectedRecvPattern(op, group_.rank(), group_.ranks(), count)) {
        XPUPERF_CUDA_RETURN_IF_ERROR(kernels::LaunchCheckPattern(
            recv_.as<float>() + s.start, s.count, s.a, s.b, s.offset, device_wrong, stream_));
      }
      XPUPERF_ASSIGN_OR_RETURN(wrong, ReadCounter(device_wrong, stream_));
      return Status::Ok();
    }();
    XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, local));
    return RecordWrong(group_, static_cast<int64_t>(wrong), result);
  }

  // One operation on this rank's stream (not waited for).
  Status Enqueue(CollectiveOp op, int64_t elements) {
    const auto count = static_cast<size_t>(elements);
    const int n = group_.ranks();
    const int r = group_.rank();
    const float* s = send_.as<float>();
    float* d = recv_.as<float>();
    if (in_place_) {  // the buffers of nccl-tests' in-place column
      switch (op) {
        case CollectiveOp::kAllReduce:
        case CollectiveOp::kBroadcast:
          s = d;
          break;
        case CollectiveOp::kAllGather:
          s = d + static_cast<size_t>(r) * count;
          break;
        case CollectiveOp::kReduceScatter:
          d = send_.as<float>() + static_cast<size_t>(r) * count;
          break;
        case CollectiveOp::kAllToAll:
        case CollectiveOp::kSendRecv:
          break;
      }
    }
    switch (op) {
      case CollectiveOp::kAllReduce:
        return nccl_.Check(nccl_.AllReduce(s, d, count, ncclFloat, ncclSum, comm_, stream_),
                           "ncclAllReduce");
      case CollectiveOp::kAllGather:
        return nccl_.Check(nccl_.AllGather(s, d, count, ncclFloat, comm_, stream_),
                           "ncclAllGather");
      case CollectiveOp::kReduceScatter:
        return nccl_.Check(nccl_.ReduceScatter(s, d, count, ncclFloat, ncclSum, comm_, stream_),
                           "ncclReduceScatter");
      case CollectiveOp::kBroadcast:
        return nccl_.Check(nccl_.Broadcast(s, d, count, ncclFloat, 0, comm_, stream_),
                           "ncclBroadcast");
      case CollectiveOp::kAllToAll:
      case CollectiveOp::kSendRecv:
        break;
    }
    XPUPERF_RETURN_IF_ERROR(nccl_.Check(nccl_.GroupStart(), "ncclGroupStart"));
    Status status;
    if (op == CollectiveOp::kAllToAll) {
      for (int q = 0; q < n && status.ok(); ++q) {
        status =
            nccl_.Check(nccl_.Send(s + q * count, count, ncclFloat, q, comm_, stream_), "ncclSend");
        if (status.ok()) {
          status = nccl_.Check(nccl_.Recv(d + q * count, count, ncclFloat, q, comm_, stream_),
                               "ncclRecv");
        }
      }
    } else {  // send_recv: a ring, rank r sends to r + 1 and receives from r - 1
      status =
          nccl_.Check(nccl_.Send(s, count, ncclFloat, (r + 1) % n, comm_, stream_), "ncclSend");
      if (status.ok()) {
        status = nccl_.Check(nccl_.Recv(d, count, ncclFloat, (r + n - 1) % n, comm_, stream_),
                             "ncclRecv");
      }
    }
    const Status end = nccl_.Check(nccl_.GroupEnd(), "ncclGroupEnd");
    return status.ok() ? end : status;
  }

  RankGroup& group_;
  const Nccl& nccl_;
  int device_ = 0;
  std::string device_name_;
  int version_ = 0;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
  DeviceBuffer send_;
  DeviceBuffer recv_;
  bool in_place_ = false;  // of the Run in progress
};

}  // namespace

Result<std::unique_ptr<NcclOverRanks>> StartNcclOverRanks(RankGroup& group) {
  std::unique_ptr<NcclRankSession> session;
  const Status ready = [&]() -> Status {
    XPUPERF_RETURN_IF_ERROR(CudaAvailability());
    XPUPERF_ASSIGN_OR_RETURN(const Nccl* nccl, LoadNccl());
    session = std::make_unique<NcclRankSession>(group, *nccl);
    return session->Prepare();
  }();
  XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group, ready));
  XPUPERF_RETURN_IF_ERROR(session->Join());
  return std::unique_ptr<NcclOverRanks>(std::move(session));
}

}  // namespace xpuperf::cuda_bench

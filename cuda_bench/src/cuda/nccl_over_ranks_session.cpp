// NCCL collectives across ranks, one GPU per rank: ncclCommInitRank with rank 0's ncclUniqueId,
// the typed buffers and checks of the MPI collectives (collectives/typed_buffers.h: any -d
// datatype and -o reduction, both placements) copied to and from the GPU, CUDA events around each
// sample.
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "cuda/cuda_util.h"
#include "cuda/nccl.h"
#include "xpuperf/collectives/typed_buffers.h"
#include "xpuperf/cuda_bench/cuda_benchmarks.h"
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

ncclDataType_t NcclType(collectives::DataType type) {
  switch (type) {
    case collectives::DataType::kDouble:
      return ncclDouble;
    case collectives::DataType::kHalf:
      return ncclHalf;
    case collectives::DataType::kBfloat16:
      return ncclBfloat16;
    case collectives::DataType::kInt32:
      return ncclInt32;
    case collectives::DataType::kFloat:
      break;
  }
  return ncclFloat;
}

// avg is NCCL's own ncclAvg (NCCL 2.10 and later): the sum divided by the ranks, in the type.
ncclRedOp_t NcclOp(collectives::ReduceOp op) {
  switch (op) {
    case collectives::ReduceOp::kProd:
      return ncclProd;
    case collectives::ReduceOp::kMin:
      return ncclMin;
    case collectives::ReduceOp::kMax:
      return ncclMax;
    case collectives::ReduceOp::kAvg:
      return ncclAvg;
    case collectives::ReduceOp::kSum:
      break;
  }
  return ncclSum;
}

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

  Result<collectives::CollectiveResult> Run(
      CollectiveOp op, int64_t bytes, const collectives::TimingOptions& timing,
      const collectives::CollectiveVariant& variant) override {
    if (timing.iterations < 1 || timing.samples < 1 || timing.warmup_iterations < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "collectives need iterations >= 1, samples >= 1 and warm-up >= 0");
    }
    if (variant.in_place && (op == CollectiveOp::kAllToAll || op == CollectiveOp::kSendRecv)) {
      return MakeError(ErrorCode::kUnsupported,
                       "unsupported: NCCL has no in-place all_to_all or send_recv");
    }
    variant_ = variant;
    const int n = group_.ranks();
    collectives::CollectiveResult result;
    result.op = op;
    result.ranks = n;
    XPUPERF_ASSIGN_OR_RETURN(result.shape,
                             NcclShapeFor(op, bytes, n, collectives::DataTypeSize(variant.dtype)));
    XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, Allocate(op, result.shape)));

    const auto once = [&] { return AgreeOnStatus(group_, Enqueue(op, result.shape.count)); };
    // One checked operation, from the initial buffers again (in place the timed operations
    // changed their own input).
    const auto checked = [&]() -> Status {
      XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, Upload()));
      XPUPERF_RETURN_IF_ERROR(once());
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
        XPUPERF_RETURN_IF_ERROR(variant_.in_place ? checked() : Verify(op, result));
      }
    }
    return result;
  }

 private:
  // The device buffers of the host ones (collectives/typed_buffers.h: in place, recv_ is the one
  // buffer), filled as before the first operation.
  Status Allocate(CollectiveOp op, const collectives::CollectiveShape& shape) {
    host_ = collectives::MakeTypedBuffers(op, shape, variant_, group_.rank());
    XPUPERF_ASSIGN_OR_RETURN(send_, DeviceBuffer::Allocate(host_.send.size()));
    XPUPERF_ASSIGN_OR_RETURN(recv_, DeviceBuffer::Allocate(host_.recv.size()));
    return Upload();
  }

  Status Upload() {
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(send_.get(), host_.send.data(), host_.send.size(),
                                                 cudaMemcpyHostToDevice, stream_));
    XPUPERF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(recv_.get(), host_.recv.data(), host_.recv.size(),
                                                 cudaMemcpyHostToDevice, stream_));
    return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // Where this rank's result lies in recv_, in elements: in place, reduce_scatter's lands in
  // this rank's block of the one buffer; everything else at its start.
  int64_t ResultOffset(CollectiveOp op, int64_t count) const {
    return variant_.in_place && op == CollectiveOp::kReduceScatter ? group_.rank() * count : 0;
  }

  // Every element of this rank's result against the exact one within the type's rounding,
  // summed over the ranks.
  Status Verify(CollectiveOp op, collectives::CollectiveResult& result) {
    int64_t wrong = 0;
    const Status local = [&]() -> Status {
      const int size = collectives::DataTypeSize(variant_.dtype);
      std::vector<unsigned char> got(static_cast<size_t>(result.shape.recv_elements + 1) * size);
      const char* from = recv_.as<char>() + ResultOffset(op, result.shape.count) * size;
      XPUPERF_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(got.data(), from, static_cast<size_t>(result.shape.recv_elements) * size,
                          cudaMemcpyDeviceToHost, stream_));
      XPUPERF_RETURN_IF_ERROR(CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"));
      wrong = collectives::CountWrongTyped(op, result.shape, variant_, group_.rank(),
                                           group_.ranks(), got.data());
      return Status::Ok();
    }();
    XPUPERF_RETURN_IF_ERROR(AgreeOnStatus(group_, local));
    return RecordWrong(group_, wrong, result);
  }

  // One operation on this rank's stream (not waited for).
  Status Enqueue(CollectiveOp op, int64_t elements) {
    const auto count = static_cast<size_t>(elements);
    const size_t block = count * static_cast<size_t>(collectives::DataTypeSize(variant_.dtype));
    const int n = group_.ranks();
    const int r = group_.rank();
    const ncclDataType_t type = NcclType(variant_.dtype);
    const ncclRedOp_t redop = NcclOp(variant_.redop);
    const char* s = send_.as<char>();
    char* d = recv_.as<char>();
    if (variant_.in_place) {  // the buffers of nccl-tests' in-place column, all in recv_
      s = d;
      if (op == CollectiveOp::kAllGather) s = d + static_cast<size_t>(r) * block;
      if (op == CollectiveOp::kReduceScatter) d += static_cast<size_t>(r) * block;
    }
    switch (op) {
      case CollectiveOp::kAllReduce:
        return nccl_.Check(nccl_.AllReduce(s, d, count, type, redop, comm_, stream_),
                           "ncclAllReduce");
      case CollectiveOp::kAllGather:
        return nccl_.Check(nccl_.AllGather(s, d, count, type, comm_, stream_), "ncclAllGather");
      case CollectiveOp::kReduceScatter:
        return nccl_.Check(nccl_.ReduceScatter(s, d, count, type, redop, comm_, stream_),
                           "ncclReduceScatter");
      case CollectiveOp::kBroadcast:
        return nccl_.Check(nccl_.Broadcast(s, d, count, type, 0, comm_, stream_), "ncclBroadcast");
      case CollectiveOp::kAllToAll:
      case CollectiveOp::kSendRecv:
        break;
    }
    XPUPERF_RETURN_IF_ERROR(nccl_.Check(nccl_.GroupStart(), "ncclGroupStart"));
    Status status;
    if (op == CollectiveOp::kAllToAll) {
      for (int q = 0; q < n && status.ok(); ++q) {
        status = nccl_.Check(nccl_.Send(s + q * block, count, type, q, comm_, stream_), "ncclSend");
        if (status.ok()) {
          status =
              nccl_.Check(nccl_.Recv(d + q * block, count, type, q, comm_, stream_), "ncclRecv");
        }
      }
    } else {  // send_recv: a ring, rank r sends to r + 1 and receives from r - 1
      status = nccl_.Check(nccl_.Send(s, count, type, (r + 1) % n, comm_, stream_), "ncclSend");
      if (status.ok()) {
        status =
            nccl_.Check(nccl_.Recv(d, count, type, (r + n - 1) % n, comm_, stream_), "ncclRecv");
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
  collectives::TypedBuffers host_;          // the initial buffers of the Run in progress
  collectives::CollectiveVariant variant_;  // of the Run in progress
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

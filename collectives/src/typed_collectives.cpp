// The collectives of mpi_collectives.h for any datatype, reduction and placement: typed buffers,
// MPI datatypes and ops (user-defined for half and bfloat16), verification within the type's
// rounding.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "mpi_error.h"
#include "xpuperf/collectives/mpi_collectives.h"
#include "xpuperf/collectives/pattern.h"
#include "xpuperf/collectives/typed_buffers.h"

namespace xpuperf::collectives {
namespace {

// A 2-byte element reduced through double, rounded to the type once per step.
template <DataType kType, ReduceOp kOp>
void ReduceTwoByte(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  auto* a = static_cast<unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (ptrdiff_t i = 0; i < *length; ++i) {
    const double x = DecodeValue(kType, a + 2 * i);
    const double y = DecodeValue(kType, b + 2 * i);
    double r = 0;
    if constexpr (kOp == ReduceOp::kProd) {
      r = x * y;
    } else if constexpr (kOp == ReduceOp::kMin) {
      r = std::min(x, y);
    } else if constexpr (kOp == ReduceOp::kMax) {
      r = std::max(x, y);
    } else {
      r = x + y;  // sum, and avg's sum
    }
    EncodeValue(kType, r, b + 2 * i);
  }
}

template <DataType kType>
MPI_User_function* TwoByteFunction(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd:
      return &ReduceTwoByte<kType, ReduceOp::kProd>;
    case ReduceOp::kMin:
      return &ReduceTwoByte<kType, ReduceOp::kMin>;
    case ReduceOp::kMax:
      return &ReduceTwoByte<kType, ReduceOp::kMax>;
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      break;
  }
  return &ReduceTwoByte<kType, ReduceOp::kSum>;
}

// The MPI datatype and op of a variant, freed with the object.
class MpiTypes {
 public:
  MpiTypes() = default;
  MpiTypes(const MpiTypes&) = delete;
  MpiTypes& operator=(const MpiTypes&) = delete;
  ~MpiTypes() {
    if (own_type_) MPI_Type_free(&type_);
    if (own_op_) MPI_Op_free(&op_);
  }

  Status Make(const CollectiveVariant& v) {
    switch (v.dtype) {
      case DataType::kFloat:
        type_ = MPI_FLOAT;
        break;
      case DataType::kDouble:
        type_ = MPI_DOUBLE;
        break;
      case DataType::kInt32:
        type_ = MPI_INT32_T;
        break;
      case DataType::kHalf:
      case DataType::kBfloat16:
        XPUPERF_MPI(MPI_Type_contiguous(2, MPI_BYTE, &type_));
        own_type_ = true;
        XPUPERF_MPI(MPI_Type_commit(&type_));
        break;
    }
    if (own_type_) {
      MPI_User_function* function = v.dtype == DataType::kHalf
                                        ? TwoByteFunction<DataType::kHalf>(v.redop)
                                        : TwoByteFunction<DataType::kBfloat16>(v.redop);
      XPUPERF_MPI(MPI_Op_create(function, 1, &op_));
      own_op_ = true;
    } else {
      op_ = v.redop == ReduceOp::kProd  ? MPI_PROD
            : v.redop == ReduceOp::kMin ? MPI_MIN
            : v.redop == ReduceOp::kMax ? MPI_MAX
                                        : MPI_SUM;
    }
    return Status::Ok();
  }
  MPI_Datatype type() const { return type_; }
  MPI_Op op() const { return op_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
  bool own_type_ = false;
  bool own_op_ = false;
};

// avg: the sum divided by the ranks, element by element, in the type.
void DivideByRanks(DataType dtype, unsigned char* data, int64_t elements, int ranks) {
  switch (dtype) {
    case DataType::kFloat: {
      auto* p = reinterpret_cast<float*>(data);
      const float n = static_cast<float>(ranks);
      for (int64_t i = 0; i < elements; ++i) p[i] /= n;
      return;
    }
    case DataType::kDouble: {
      auto* p = reinterpret_cast<double*>(data);
      for (int64_t i = 0; i < elements; ++i) p[i] /= ranks;
      return;
    }
    case DataType::kInt32: {
      auto* p = reinterpret_cast<int32_t*>(data);
      for (int64_t i = 0; i < elements; ++i) p[i] /= ranks;
      return;
    }
    case DataType::kHalf:
    case DataType::kBfloat16:
      for (int64_t i = 0; i < elements; ++i) {
        EncodeValue(dtype, DecodeValue(dtype, data + 2 * i) / ranks, data + 2 * i);
      }
      return;
  }
}

class TypedRun {
 public:
  TypedRun(const MpiSession& mpi, CollectiveOp op, const CollectiveShape& shape,
           const CollectiveVariant& variant)
      : mpi_(mpi), op_(op), shape_(shape), v_(variant) {}

  Status Prepare() { return types_.Make(v_); }

  // The buffers as before the first operation.
  void Fill() {
    TypedBuffers b = MakeTypedBuffers(op_, shape_, v_, mpi_.rank());
    send_ = std::move(b.send);
    recv_ = std::move(b.recv);
  }

  // One operation (and avg's division).
  Status Once() {
    const int rank = mpi_.rank();
    const int ranks = mpi_.ranks();
    const int count = static_cast<int>(shape_.count);
    const MPI_Datatype type = types_.type();
    void* send = send_.data();
    void* recv = recv_.data();
    void* in_place = MPI_IN_PLACE;
    switch (op_) {
      case CollectiveOp::kAllReduce:
        XPUPERF_MPI(MPI_Allreduce(v_.in_place ? in_place : send, recv, count, type, types_.op(),
                                  MPI_COMM_WORLD));
        break;
      case CollectiveOp::kReduceScatter:
        XPUPERF_MPI(MPI_Reduce_scatter_block(v_.in_place ? in_place : send, recv, count, type,
                                             types_.op(), MPI_COMM_WORLD));
        break;
      case CollectiveOp::kAllGather:
        if (v_.in_place) {
          XPUPERF_MPI(
              MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, type, MPI_COMM_WORLD));
        } else {
          XPUPERF_MPI(MPI_Allgather(send, count, type, recv, count, type, MPI_COMM_WORLD));
        }
        break;
      case CollectiveOp::kAllToAll:
        if (v_.in_place) {
          XPUPERF_MPI(
              MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, type, MPI_COMM_WORLD));
        } else {
          XPUPERF_MPI(MPI_Alltoall(send, count, type, recv, count, type, MPI_COMM_WORLD));
        }
        break;
      case CollectiveOp::kBroadcast:
        XPUPERF_MPI(MPI_Bcast(recv, count, type, 0, MPI_COMM_WORLD));
        break;
      case CollectiveOp::kSendRecv:
        if (v_.in_place) {
          XPUPERF_MPI(MPI_Sendrecv_replace(recv, count, type, (rank + 1) % ranks, 0,
                                           (rank + ranks - 1) % ranks, 0, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
        } else {
          XPUPERF_MPI(MPI_Sendrecv(send, count, type, (rank + 1) % ranks, 0, recv, count, type,
                                   (rank + ranks - 1) % ranks, 0, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
        }
        break;
    }
    if (Reduces(op_) && v_.redop == ReduceOp::kAvg) {
      DivideByRanks(v_.dtype, recv_.data(),
                    op_ == CollectiveOp::kAllReduce ? shape_.count : shape_.block, ranks);
    }
    return Status::Ok();
  }

  // Elements of this rank's result that differ from the exact one beyond the type's rounding.
  int64_t CountWrong() const {
    return CountWrongTyped(op_, shape_, v_, mpi_.rank(), mpi_.ranks(), recv_.data());
  }

 private:
  const MpiSession& mpi_;
  CollectiveOp op_;
  CollectiveShape shape_;
  CollectiveVariant v_;
  MpiTypes types_;
  std::vector<unsigned char> send_;
  std::vector<unsigned char> recv_;
};

}  // namespace

Result<CollectiveResult> RunCollective(const MpiSession& mpi, CollectiveOp op, int64_t bytes,
                                       const TimingOptions& options,
                                       const CollectiveVariant& variant) {
  if (options.iterations < 1 || options.samples < 1 || options.warmup_iterations < 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "collectives need iterations >= 1, samples >= 1 and warm-up >= 0");
  }
  if (op == CollectiveOp::kBroadcast && !variant.in_place) {
    return MakeError(ErrorCode::kUnsupported,
                     "unsupported: MPI_Bcast has one buffer, so broadcast is measured in place");
  }
  CollectiveResult result;
  result.op = op;
  result.ranks = mpi.ranks();
  XPUPERF_ASSIGN_OR_RETURN(result.shape,
                           ShapeFor(op, bytes, mpi.ranks(), DataTypeSize(variant.dtype)));
  TypedRun run(mpi, op, result.shape, variant);
  // Every rank creates the same types, so they fail or succeed together.
  XPUPERF_RETURN_IF_ERROR(run.Prepare());
  run.Fill();
  XPUPERF_RETURN_IF_ERROR(run.Once());
  int64_t wrong = run.CountWrong();
  for (int i = 0; i < options.warmup_iterations; ++i) XPUPERF_RETURN_IF_ERROR(run.Once());
  for (int sample = 0; sample < options.samples; ++sample) {
    XPUPERF_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double start = MPI_Wtime();
    for (int i = 0; i < options.iterations; ++i) XPUPERF_RETURN_IF_ERROR(run.Once());
    const double local = MPI_Wtime() - start;
    double slowest = 0;
    XPUPERF_MPI(MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (mpi.rank() == 0) result.seconds_per_operation.push_back(slowest / options.iterations);
    if (options.check_every_sample) {
      // In place, the timed operations changed their own input (a sum grows each time): the
      // check starts again from the pattern, one operation, untimed.
      if (variant.in_place) {
        run.Fill();
        XPUPERF_RETURN_IF_ERROR(run.Once());
      }
      wrong += run.CountWrong();
    }
  }
  XPUPERF_MPI(MPI_Reduce(&wrong, &result.wrong, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
  return result;
}

}  // namespace xpuperf::collectives

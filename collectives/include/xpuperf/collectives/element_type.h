// nccl-tests' -d datatypes and -o reduction operations: names, sizes, the values' encoding, and
// what a reduction over the ranks must give, with the tolerance its type allows. Pure functions,
// no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/collectives/collective.h"
#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

enum class DataType { kFloat, kDouble, kHalf, kBfloat16, kInt32 };
enum class ReduceOp { kSum, kProd, kMin, kMax, kAvg };

// What one run of a collective moves and how: nccl-tests' -d, -o and its two columns.
struct CollectiveVariant {
  DataType dtype = DataType::kFloat;
  ReduceOp redop = ReduceOp::kSum;  // for all_reduce and reduce_scatter
  bool in_place = false;            // the result lands in the send buffer (MPI_IN_PLACE)
};

// "float", "double", "half", "bfloat16", "int32" (nccl-tests' names).
std::string_view DataTypeName(DataType type);
// Also "int" for int32, "fp32", "fp64", "fp16", "bf16". kInvalidArgument naming the known ones.
Result<DataType> ParseDataType(std::string_view name);
const std::vector<DataType>& AllDataTypes();
int DataTypeSize(DataType type);

// "sum", "prod", "min", "max", "avg".
std::string_view ReduceOpName(ReduceOp op);
Result<ReduceOp> ParseReduceOp(std::string_view name);
const std::vector<ReduceOp>& AllReduceOps();

// all_reduce and reduce_scatter reduce; the other collectives only move data (their redop is
// "none" in the table).
bool Reduces(CollectiveOp op);

// Element encoding: `value` stored as `type` at `out` (round to nearest even for half and
// bfloat16; truncation toward zero for int32), and read back as a double.
void EncodeValue(DataType type, double value, void* out);
double DecodeValue(DataType type, const void* in);

// The value rank `rank` contributes at `index` for `op`: 1..17 as pattern.h, except for prod,
// where it is 2 at one index in 17 per rank and 1 elsewhere, so that products stay exact powers
// of two in every type.
double ContributedValue(ReduceOp op, int rank, int64_t index);

// The exact reduction over `ranks` ranks at `index` (avg: the sum over ranks divided by their
// number, truncated toward zero for int32 as NCCL's ncclAvg does).
double ExpectedReduction(ReduceOp op, DataType type, int ranks, int64_t index);

// How far a received value may lie from ExpectedReduction: 0 where the arithmetic is exact
// (integers, min, max, prod of powers of two, sums of small integers below the type's exact
// range); otherwise the rounding of ranks - 1 additions and a division in the type.
double Tolerance(ReduceOp op, DataType type, int ranks, double expected);

}  // namespace xpuperf::collectives

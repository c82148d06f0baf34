#include "xpuperf/collectives/element_type.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "xpuperf/core/half_float.h"

namespace xpuperf::collectives {
namespace {

// The unit roundoff of a floating type; 0 for int32.
double UnitRoundoff(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return std::ldexp(1.0, -24);
    case DataType::kDouble:
      return std::ldexp(1.0, -53);
    case DataType::kHalf:
      return std::ldexp(1.0, -11);
    case DataType::kBfloat16:
      return std::ldexp(1.0, -8);
    case DataType::kInt32:
      return 0;
  }
  return 0;
}

// Integers up to this are exact in the type.
double ExactIntegerLimit(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return std::ldexp(1.0, 24);
    case DataType::kDouble:
      return std::ldexp(1.0, 53);
    case DataType::kHalf:
      return 2048;
    case DataType::kBfloat16:
      return 256;
    case DataType::kInt32:
      return 2147483647.0;
  }
  return 0;
}

}  // namespace

std::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return "float";
    case DataType::kDouble:
      return "double";
    case DataType::kHalf:
      return "half";
    case DataType::kBfloat16:
      return "bfloat16";
    case DataType::kInt32:
      return "int32";
  }
  return "float";
}

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType> all = {DataType::kFloat, DataType::kDouble, DataType::kHalf,
                                            DataType::kBfloat16, DataType::kInt32};
  return all;
}

Result<DataType> ParseDataType(std::string_view name) {
  for (DataType type : AllDataTypes()) {
    if (DataTypeName(type) == name) return type;
  }
  if (name == "int") return DataType::kInt32;
  if (name == "fp32") return DataType::kFloat;
  if (name == "fp64") return DataType::kDouble;
  if (name == "fp16") return DataType::kHalf;
  if (name == "bf16") return DataType::kBfloat16;
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown datatype '{}' (known: float, double, half, bfloat16, "
                               "int32; also int, fp32, fp64, fp16, bf16)",
                               name));
}

int DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kDouble:
      return 8;
    case DataType::kHalf:
    case DataType::kBfloat16:
      return 2;
    case DataType::kFloat:
    case DataType::kInt32:
      return 4;
  }
  return 4;
}

std::string_view ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kAvg:
      return "avg";
  }
  return "sum";
}

const std::vector<ReduceOp>& AllReduceOps() {
  static const std::vector<ReduceOp> all = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin,
                                            ReduceOp::kMax, ReduceOp::kAvg};
  return all;
}

Result<ReduceOp> ParseReduceOp(std::string_view name) {
  for (ReduceOp op : AllReduceOps()) {
    if (ReduceOpName(op) == name) return op;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown reduction '{}' (known: sum, prod, min, max, avg)", name));
}

bool Reduces(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter;
}

void EncodeValue(DataType type, double value, void* out) {
  switch (type) {
    case DataType::kFloat: {
      const auto v = static_cast<float>(value);
      std::memcpy(out, &v, sizeof(v));
      return;
    }
    case DataType::kDouble:
      std::memcpy(out, &value, sizeof(value));
      return;
    case DataType::kHalf: {
      const uint16_t v = FloatToHalf(static_cast<float>(value));
      std::memcpy(out, &v, sizeof(v));
      return;
    }
    case DataType::kBfloat16: {
      const uint16_t v = FloatToBfloat16(static_cast<float>(value));
      std::memcpy(out, &v, sizeof(v));
      return;
    }
    case DataType::kInt32: {
      const auto v =
          static_cast<int32_t>(std::clamp(std::trunc(value), -2147483648.0, 2147483647.0));
      std::memcpy(out, &v, sizeof(v));
      return;
    }
  }
}

double DecodeValue(DataType type, const void* in) {
  switch (type) {
    case DataType::kFloat: {
      float v = 0;
      std::memcpy(&v, in, sizeof(v));
      return v;
    }
    case DataType::kDouble: {
      double v = 0;
      std::memcpy(&v, in, sizeof(v));
      return v;
    }
    case DataType::kHalf: {
      uint16_t v = 0;
      std::memcpy(&v, in, sizeof(v));
      return HalfToFloat(v);
    }
    case DataType::kBfloat16: {
      uint16_t v = 0;
      std::memcpy(&v, in, sizeof(v));
      return Bfloat16ToFloat(v);
    }
    case DataType::kInt32: {
      int32_t v = 0;
      std::memcpy(&v, in, sizeof(v));
      return v;
    }
  }
  return 0;
}

double ContributedValue(ReduceOp op, int rank, int64_t index) {
  const int64_t k = (int64_t{7} * (rank % 17) + 3 * (index % 17)) % 17;
  if (op == ReduceOp::kProd) return k == 0 ? 2.0 : 1.0;
  return static_cast<double>(k + 1);
}

double ExpectedReduction(ReduceOp op, DataType type, int ranks, int64_t index) {
  double result = op == ReduceOp::kProd ? 1.0 : 0.0;
  for (int r = 0; r < ranks; ++r) {
    const double v = ContributedValue(op, r, index);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        result += v;
        break;
      case ReduceOp::kProd:
        result *= v;
        break;
      case ReduceOp::kMin:
        result = r == 0 ? v : std::min(result, v);
        break;
      case ReduceOp::kMax:
        result = r == 0 ? v : std::max(result, v);
        break;
    }
  }
  if (op == ReduceOp::kAvg) {
    result /= ranks;
    if (type == DataType::kInt32) result = std::trunc(result);
  }
  return result;
}

double Tolerance(ReduceOp op, DataType type, int ranks, double expected) {
  if (op == ReduceOp::kMin || op == ReduceOp::kMax || op == ReduceOp::kProd) return 0;
  if (type == DataType::kInt32) return 0;
  const double sum_bound = 17.0 * ranks;  // the largest partial sum
  const double u = UnitRoundoff(type);
  if (op == ReduceOp::kSum && sum_bound <= ExactIntegerLimit(type)) return 0;
  // Each of the ranks - 1 additions rounds by at most u of its partial sum (at most the final
  // sum), and avg's division once more.
  const double sum = op == ReduceOp::kAvg ? std::abs(expected) * ranks : std::abs(expected);
  double bound = (ranks - 1) * u * sum;
  if (op == ReduceOp::kAvg) bound = bound / ranks + 2 * u * std::abs(expected);
  return bound;
}

}  // namespace xpuperf::collectives

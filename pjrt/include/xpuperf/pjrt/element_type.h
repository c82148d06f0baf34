// Element types of PJRT buffers and StableHLO tensors, by the names benchmark points use.
#pragma once

#include <cstddef>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::pjrt {

enum class ElementType { kF64, kF32, kBF16, kF16, kS64, kS32, kS8 };

// Bytes per element.
size_t ElementBytes(ElementType type);
// The StableHLO spelling: "f64", "f32", "bf16", "f16", "i64", "i32", "i8".
std::string_view MlirName(ElementType type);
// The precision name of result records: "fp64", "fp32", "bf16", "fp16", "int64", "int32",
// "int8".
std::string_view PrecisionName(ElementType type);
// Accepts the precision names; kInvalidArgument naming them otherwise.
Result<ElementType> ParsePrecision(std::string_view name);
bool IsInteger(ElementType type);

// Host conversions for data and verification (bf16 and fp16 by round-to-nearest-even).
void StoreElement(ElementType type, double value, void* destination);
double LoadElement(ElementType type, const void* source);

}  // namespace xpuperf::pjrt

#include "xpuperf/pjrt/element_type.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "xpuperf/core/half_float.h"

namespace xpuperf::pjrt {

size_t ElementBytes(ElementType type) {
  switch (type) {
    case ElementType::kF64:
    case ElementType::kS64:
      return 8;
    case ElementType::kF32:
    case ElementType::kS32:
      return 4;
    case ElementType::kBF16:
    case ElementType::kF16:
      return 2;
    case ElementType::kS8:
      return 1;
  }
  return 0;
}

std::string_view MlirName(ElementType type) {
  switch (type) {
    case ElementType::kF64:
      return "f64";
    case ElementType::kF32:
      return "f32";
    case ElementType::kBF16:
      return "bf16";
    case ElementType::kF16:
      return "f16";
    case ElementType::kS64:
      return "i64";
    case ElementType::kS32:
      return "i32";
    case ElementType::kS8:
      return "i8";
  }
  return "?";
}

std::string_view PrecisionName(ElementType type) {
  switch (type) {
    case ElementType::kF64:
      return "fp64";
    case ElementType::kF32:
      return "fp32";
    case ElementType::kBF16:
      return "bf16";
    case ElementType::kF16:
      return "fp16";
    case ElementType::kS64:
      return "int64";
    case ElementType::kS32:
      return "int32";
    case ElementType::kS8:
      return "int8";
  }
  return "?";
}

Result<ElementType> ParsePrecision(std::string_view name) {
  for (ElementType t : {ElementType::kF64, ElementType::kF32, ElementType::kBF16, ElementType::kF16,
                        ElementType::kS64, ElementType::kS32, ElementType::kS8}) {
    if (name == PrecisionName(t)) return t;
  }
  return MakeError(
      ErrorCode::kInvalidArgument,
      fmt::format("unknown precision '{}' (fp64, fp32, bf16, fp16, int64, int32, int8)", name));
}

bool IsInteger(ElementType type) {
  return type == ElementType::kS64 || type == ElementType::kS32 || type == ElementType::kS8;
}

void StoreElement(ElementType type, double value, void* destination) {
  switch (type) {
    case ElementType::kF64:
      std::memcpy(destination, &value, 8);
      break;
    case ElementType::kF32: {
      const auto f = static_cast<float>(value);
      std::memcpy(destination, &f, 4);
      break;
    }
    case ElementType::kBF16: {
      const uint16_t h = FloatToBfloat16(static_cast<float>(value));
      std::memcpy(destination, &h, 2);
      break;
    }
    case ElementType::kF16: {
#ifdef __FLT16_MAX__
      const auto h = static_cast<_Float16>(value);
#else
      const uint16_t h = FloatToHalf(static_cast<float>(value));
#endif
      std::memcpy(destination, &h, 2);
      break;
    }
    case ElementType::kS64: {
      const auto i = static_cast<int64_t>(std::llround(value));
      std::memcpy(destination, &i, 8);
      break;
    }
    case ElementType::kS32: {
      const auto i = static_cast<int32_t>(std::lround(value));
      std::memcpy(destination, &i, 4);
      break;
    }
    case ElementType::kS8: {
      const auto i = static_cast<int8_t>(std::lround(value));
      std::memcpy(destination, &i, 1);
      break;
    }
  }
}

double LoadElement(ElementType type, const void* source) {
  switch (type) {
    case ElementType::kF64: {
      double d;
      std::memcpy(&d, source, 8);
      return d;
    }
    case ElementType::kF32: {
      float f;
      std::memcpy(&f, source, 4);
      return f;
    }
    case ElementType::kBF16: {
      uint16_t h;
      std::memcpy(&h, source, 2);
      return Bfloat16ToFloat(h);
    }
    case ElementType::kF16: {
#ifdef __FLT16_MAX__
      _Float16 h;
      std::memcpy(&h, source, 2);
      return static_cast<double>(h);
#else
      uint16_t h;
      std::memcpy(&h, source, 2);
      return HalfToFloat(h);
#endif
    }
    case ElementType::kS64: {
      int64_t i;
      std::memcpy(&i, source, 8);
      return static_cast<double>(i);
    }
    case ElementType::kS32: {
      int32_t i;
      std::memcpy(&i, source, 4);
      return i;
    }
    case ElementType::kS8: {
      int8_t i;
      std::memcpy(&i, source, 1);
      return i;
    }
  }
  return 0;
}

}  // namespace xpuperf::pjrt

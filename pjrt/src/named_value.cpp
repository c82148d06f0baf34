#include "named_value.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace xpuperf::pjrt {

std::string NamedValue::ToString() const {
  struct Visitor {
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(const std::vector<int64_t>& v) const {
      return fmt::format("[{}]", fmt::join(v, ", "));
    }
    std::string operator()(float v) const { return fmt::format("{}", v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
  };
  return name + "=" + std::visit(Visitor{}, value);
}

std::vector<NamedValue> FromPjrt(const PJRT_NamedValue* values, size_t count) {
  std::vector<NamedValue> out;
  for (size_t i = 0; values != nullptr && i < count; ++i) {
    const PJRT_NamedValue& v = values[i];
    NamedValue named;
    named.name.assign(v.name, v.name_size);
    switch (v.type) {
      case PJRT_NamedValue_kString:
        named.value = std::string(v.string_value, v.value_size);
        break;
      case PJRT_NamedValue_kInt64:
        named.value = v.int64_value;
        break;
      case PJRT_NamedValue_kInt64List:
        named.value = std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size);
        break;
      case PJRT_NamedValue_kFloat:
        named.value = v.float_value;
        break;
      case PJRT_NamedValue_kBool:
        named.value = v.bool_value;
        break;
      default:
        named.value = std::string("(value of unknown type)");
        break;
    }
    out.push_back(std::move(named));
  }
  return out;
}

std::vector<PJRT_NamedValue> ToPjrt(const std::vector<NamedValue>& values) {
  std::vector<PJRT_NamedValue> out;
  out.reserve(values.size());
  for (const NamedValue& v : values) {
    PJRT_NamedValue p{};
    p.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    p.name = v.name.data();
    p.name_size = v.name.size();
    p.value_size = 1;
    if (const auto* s = std::get_if<std::string>(&v.value)) {
      p.type = PJRT_NamedValue_kString;
      p.string_value = s->data();
      p.value_size = s->size();
    } else if (const auto* i = std::get_if<int64_t>(&v.value)) {
      p.type = PJRT_NamedValue_kInt64;
      p.int64_value = *i;
    } else if (const auto* list = std::get_if<std::vector<int64_t>>(&v.value)) {
      p.type = PJRT_NamedValue_kInt64List;
      p.int64_array_value = list->data();
      p.value_size = list->size();
    } else if (const auto* f = std::get_if<float>(&v.value)) {
      p.type = PJRT_NamedValue_kFloat;
      p.float_value = *f;
    } else {
      p.type = PJRT_NamedValue_kBool;
      p.bool_value = std::get<bool>(v.value);
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace xpuperf::pjrt

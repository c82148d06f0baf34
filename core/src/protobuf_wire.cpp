#include "xpuperf/core/protobuf_wire.h"

#include <cstring>

namespace xpuperf::wire {
double WireField::AsDouble() const {
  double d = 0;
  static_assert(sizeof(d) == sizeof(value));
  std::memcpy(&d, &value, sizeof(d));
  return d;
}

bool ReadVarintSlow(std::string_view data, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (*pos >= data.size()) return false;
    const uint64_t byte = static_cast<unsigned char>(data[(*pos)++]);
    // The tenth byte holds bit 63 only; anything above it does not fit 64 bits.
    if (i == 9 && byte > 1) return false;
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

bool WireReader::Fail(std::string message) {
  status_ = MakeError(ErrorCode::kParse, std::move(message));
  pos_ = data_.size();
  return false;
}

bool WireReader::FailTag(uint64_t tag_at) {
  return Fail("malformed or truncated field tag at byte " + std::to_string(tag_at));
}

bool WireReader::FailNumber(uint64_t number, uint64_t tag_at) {
  return Fail("invalid field number " + std::to_string(number) + " at byte " +
              std::to_string(tag_at));
}

bool WireReader::FailValue(const WireField& field, uint64_t tag, uint64_t tag_at) {
  switch (tag & 7) {
    case 0:
      return Fail("malformed or truncated varint at byte " + std::to_string(field.offset));
    case 1:
    case 5:
      return Fail("truncated fixed-width field at byte " + std::to_string(field.offset));
    case 2: {
      // Either the length itself is malformed, or it claims more than is left.
      size_t pos = static_cast<size_t>(field.offset - base_);
      uint64_t length = 0;
      if (!ReadVarint(data_, &pos, &length)) {
        return Fail("malformed or truncated length at byte " + std::to_string(field.offset));
      }
      return Fail("field " + std::to_string(tag >> 3) + " at byte " + std::to_string(tag_at) +
                  " claims " + std::to_string(length) + " bytes but only " +
                  std::to_string(data_.size() - pos) + " remain (truncated or corrupt)");
    }
    default:
      return Fail("unsupported wire type " + std::to_string(tag & 7) + " at byte " +
                  std::to_string(tag_at) + " (not a proto3 message)");
  }
}

void WireWriter::RawVarint(uint64_t value) {
  while (value >= 0x80) {
    data_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  data_.push_back(static_cast<char>(value));
}

void WireWriter::Tag(uint32_t number, WireType type) {
  RawVarint((uint64_t{number} << 3) | static_cast<uint64_t>(type));
}

void WireWriter::Varint(uint32_t number, uint64_t value) {
  Tag(number, WireType::kVarint);
  RawVarint(value);
}

void WireWriter::Double(uint32_t number, double value) {
  Tag(number, WireType::kFixed64);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  for (int i = 0; i < 8; ++i) data_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void WireWriter::Bytes(uint32_t number, std::string_view bytes) {
  Tag(number, WireType::kLengthDelimited);
  RawVarint(bytes.size());
  data_.append(bytes);
}

}  // namespace xpuperf::wire

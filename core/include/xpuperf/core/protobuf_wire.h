// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), read and written by
// hand for the few messages xpuperf exchanges with XLA's profiler (ProfileRequest/Response,
// XSpace) without libprotobuf. Reading is bounded and checked: every varint is at most 10 bytes
// and fits 64 bits, every length fits what is left of its message, field numbers are 1..2^29-1;
// anything else is an error naming the byte offset, never a read past the end. Groups (wire types
// 3 and 4, proto2 only) are refused.
//
// Thread-safety: a WireReader or WireWriter is one object's state; distinct objects are
// independent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::wire {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kFixed32 = 5,
};

// One field as it appears on the wire.
struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;      // kVarint: the varint; kFixed64/kFixed32: the little-endian bits
  std::string_view bytes;  // kLengthDelimited: the payload (a view into the reader's input)
  uint64_t offset = 0;     // where the field's value starts, counted from the outermost message

  int64_t AsInt64() const { return static_cast<int64_t>(value); }  // int64/enum (two's complement)
  double AsDouble() const;                                         // kFixed64 as a double
};

// Reads the fields of one message in order. `base_offset` is where `data` starts in the outermost
// message (for error offsets of nested messages: WireReader(field.bytes, field.offset)).
class WireReader {
 public:
  explicit WireReader(std::string_view data, uint64_t base_offset = 0)
      : data_(data), base_(base_offset) {}

  // The next field into *field: true; false at the end of the message or on malformed input
  // (status() tells which). Inline: it runs once per field of every message read.
  bool Next(WireField* field);
  const Status& status() const { return status_; }

 private:
  bool Fail(std::string message);
  bool FailTag(uint64_t tag_at);
  bool FailNumber(uint64_t number, uint64_t tag_at);
  bool FailValue(const WireField& field, uint64_t tag, uint64_t tag_at);

  std::string_view data_;
  uint64_t base_ = 0;
  size_t pos_ = 0;
  Status status_;
};

// Decodes a varint at data[*pos], advancing *pos. False when truncated or longer than 64 bits.
// One-byte varints (tags, small values: most of them) take the inline path.
bool ReadVarintSlow(std::string_view data, size_t* pos, uint64_t* value);
inline bool ReadVarint(std::string_view data, size_t* pos, uint64_t* value) {
  if (*pos < data.size()) {
    const auto byte = static_cast<unsigned char>(data[*pos]);
    if (byte < 0x80) {
      *value = byte;
      ++*pos;
      return true;
    }
  }
  return ReadVarintSlow(data, pos, value);
}

inline bool WireReader::Next(WireField* field) {
  if (!status_.ok() || pos_ >= data_.size()) return false;
  const uint64_t tag_at = base_ + pos_;
  uint64_t tag = 0;
  if (!ReadVarint(data_, &pos_, &tag)) return FailTag(tag_at);
  const uint64_t number = tag >> 3;
  if (number == 0 || number > (uint64_t{1} << 29) - 1) return FailNumber(number, tag_at);
  field->number = static_cast<uint32_t>(number);
  field->offset = base_ + pos_;
  field->value = 0;
  field->bytes = {};
  switch (tag & 7) {
    case 0:
      field->type = WireType::kVarint;
      if (!ReadVarint(data_, &pos_, &field->value)) return FailValue(*field, tag, tag_at);
      return true;
    case 1:
    case 5: {
      const size_t width = (tag & 7) == 1 ? 8 : 4;
      if (data_.size() - pos_ < width) return FailValue(*field, tag, tag_at);
      field->type = width == 8 ? WireType::kFixed64 : WireType::kFixed32;
      uint64_t value = 0;
      for (size_t i = width; i-- > 0;) {
        value = (value << 8) | static_cast<unsigned char>(data_[pos_ + i]);
      }
      field->value = value;
      pos_ += width;
      return true;
    }
    case 2: {
      uint64_t length = 0;
      if (!ReadVarint(data_, &pos_, &length) || length > data_.size() - pos_) {
        return FailValue(*field, tag, tag_at);
      }
      field->type = WireType::kLengthDelimited;
      field->offset = base_ + pos_;
      field->bytes = data_.substr(pos_, static_cast<size_t>(length));
      pos_ += static_cast<size_t>(length);
      return true;
    }
    default:
      return FailValue(*field, tag, tag_at);
  }
}

// Builds one message. Fields are appended in call order (write them by field number, as
// protobuf's serializers do).
class WireWriter {
 public:
  void Varint(uint32_t number, uint64_t value);
  void Int64(uint32_t number, int64_t value) { Varint(number, static_cast<uint64_t>(value)); }
  void Bool(uint32_t number, bool value) { Varint(number, value ? 1 : 0); }
  void Double(uint32_t number, double value);
  void Bytes(uint32_t number, std::string_view bytes);  // also strings and nested messages
  // proto3 leaves fields at their default out; these do the same.
  void VarintIfSet(uint32_t number, uint64_t value) {
    if (value != 0) Varint(number, value);
  }
  void BytesIfSet(uint32_t number, std::string_view bytes) {
    if (!bytes.empty()) Bytes(number, bytes);
  }

  const std::string& data() const { return data_; }
  std::string Take() { return std::move(data_); }

 private:
  void Tag(uint32_t number, WireType type);
  void RawVarint(uint64_t value);

  std::string data_;
};

}  // namespace xpuperf::wire

#include "xpuperf/render/terminal_escape.h"

#include <cstdio>
#include <iostream>

namespace xpuperf::render {

namespace {

constexpr unsigned char kC1Lead = 0xC2;

bool IsControl(unsigned char c) { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F; }

}  // namespace

ControlEscapingBuffer::~ControlEscapingBuffer() { FlushPendingLead(); }

bool ControlEscapingBuffer::FlushPendingLead() {
  if (!pending_lead_) return true;
  pending_lead_ = false;
  return out_->sputc(static_cast<char>(kC1Lead)) != traits_type::eof();
}

bool ControlEscapingBuffer::Forward(const char* s, std::streamsize n) {
  return n == 0 || out_->sputn(s, n) == n;
}

std::streamsize ControlEscapingBuffer::xsputn(const char* s, std::streamsize n) {
  std::streamsize run = 0;  // start of the bytes not yet forwarded
  for (std::streamsize i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (pending_lead_) {
      pending_lead_ = false;
      if (c >= 0x80 && c <= 0x9F) {
        char escaped[8];
        std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
        if (!Forward(escaped, 6)) return i;
        run = i + 1;
        continue;
      }
      if (out_->sputc(static_cast<char>(kC1Lead)) == traits_type::eof()) return i;
    }
    if (c == kC1Lead) {
      if (!Forward(s + run, i - run)) return run;
      pending_lead_ = true;
      run = i + 1;
      continue;
    }
    if (!IsControl(c)) continue;
    if (!Forward(s + run, i - run)) return run;
    char escaped[8];
    std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
    if (!Forward(escaped, 4)) return i;
    run = i + 1;
  }
  if (!Forward(s + run, n - run)) return run;
  return n;
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return out_->pubsync() == 0 ? 0 : ch;
  const char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

int ControlEscapingBuffer::sync() {
  if (!FlushPendingLead()) return -1;
  return out_->pubsync();
}

EscapedStandardStreams::EscapedStandardStreams()
    : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()) {
  std::cout.rdbuf(&out_);
  std::cerr.rdbuf(&err_);
}

EscapedStandardStreams::~EscapedStandardStreams() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(out_.underlying());
  std::cerr.rdbuf(err_.underlying());
}

void WriteTerminalControl(std::ostream& stream, std::string_view sequence) {
  stream.flush();
  auto* escaping = dynamic_cast<ControlEscapingBuffer*>(stream.rdbuf());
  std::streambuf* target = escaping != nullptr ? escaping->underlying() : stream.rdbuf();
  target->sputn(sequence.data(), static_cast<std::streamsize>(sequence.size()));
}

}  // namespace xpuperf::render

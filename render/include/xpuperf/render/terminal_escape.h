// Text from files and processes (op names, host names, process names, labels) never reaches the
// terminal as control sequences: xpuperf's standard output and standard error pass through an
// escaping stream buffer that writes C0 control bytes other than newline and tab, DEL and the
// UTF-8 encoded C1 controls (U+0080..U+009F) as visible escapes ("\x1b", "\u009b"). So an op
// named "\e]0;title\a" or "\e[2J" can neither retitle nor clear the terminal nor forge a line.
// JSON output is unchanged (its strings already escape control characters). Binary output to
// "-" goes through C stdio, not these streams.
#pragma once

#include <ostream>
#include <streambuf>
#include <string_view>

namespace xpuperf::render {

class ControlEscapingBuffer : public std::streambuf {
 public:
  explicit ControlEscapingBuffer(std::streambuf* out) : out_(out) {}
  ~ControlEscapingBuffer() override;
  std::streambuf* underlying() const { return out_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Forward(const char* s, std::streamsize n);
  bool FlushPendingLead();

  std::streambuf* out_;
  bool pending_lead_ = false;  // a 0xC2 byte waiting for the next one (a C1 control or not)
};

// Installs the escaping buffers on std::cout and std::cerr for its lifetime.
class EscapedStandardStreams {
 public:
  EscapedStandardStreams();
  ~EscapedStandardStreams();
  EscapedStandardStreams(const EscapedStandardStreams&) = delete;
  EscapedStandardStreams& operator=(const EscapedStandardStreams&) = delete;

 private:
  ControlEscapingBuffer out_;
  ControlEscapingBuffer err_;
};

// Writes an intended control sequence (a screen clear) past the escaping buffer of `stream`.
void WriteTerminalControl(std::ostream& stream, std::string_view sequence);

}  // namespace xpuperf::render
